-- Up Migration
-- Sending domains: one row per (account, domain name), its DKIM keys and the DNS records it must publish.
--
-- Claims across accounts: any account may add any name (it stays `pending` until DNS proves control), but
-- at most one account holds a name `verified` at a time (domains_one_verified_owner). The first account to
-- verify keeps the claim for as long as its records stay published: a temporary DNS failure does not
-- release it, a definitive failure (record gone or changed) does, and then another account can verify.

create table domains (
  id uuid primary key,
  account text not null check (account ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'),
  -- Lower-case ASCII (IDNs in their xn-- form), no trailing dot.
  name text not null check (name = lower(name) and length(name) <= 253 and name ~ '^[a-z0-9.-]+$'),
  status text not null default 'pending' check (status in ('pending', 'verified', 'failed', 'temporary_failure')),
  -- Set when the status is not explained by a record's own reason, e.g. another account holds the name.
  status_reason text,
  -- Envelope sender (Return-Path) domain for this domain's mail, e.g. bounces.<name>.
  return_path_domain text not null,
  created_at timestamptz not null default now(),
  last_checked_at timestamptz,
  verified_at timestamptz,
  -- When the background recheck should look at this domain next; also used as a lease by the claimer.
  next_check_at timestamptz not null default now(),
  unique (account, name)
);
create unique index domains_one_verified_owner on domains (name) where status = 'verified';
create index domains_next_check on domains (next_check_at);

create table dkim_keys (
  id uuid primary key,
  domain_id uuid not null references domains (id) on delete cascade,
  selector text not null check (selector ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'),
  algorithm text not null check (algorithm in ('rsa', 'ed25519')),
  -- The p= value published in DNS (base64).
  public_key text not null,
  -- AES-256-GCM envelope under the key-encryption key (core/src/domains/crypto.ts); never the clear key.
  private_key_encrypted bytea not null,
  created_at timestamptz not null default now(),
  unique (domain_id, selector)
);

-- What the domain owner was told to publish, with the outcome of the latest check of each record.
create table domain_dns_records (
  domain_id uuid not null references domains (id) on delete cascade,
  purpose text not null check (purpose in ('dkim', 'spf', 'dmarc')),
  type text not null check (type in ('TXT')),
  name text not null,
  value text not null,
  -- Only required records decide the domain's status; the others are advice, checked and reported.
  required boolean not null,
  status text not null default 'pending' check (status in ('pending', 'verified', 'failed', 'temporary_failure')),
  reason text,
  last_checked_at timestamptz,
  primary key (domain_id, purpose, name)
);
