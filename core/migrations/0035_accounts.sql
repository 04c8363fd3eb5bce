-- Up Migration
-- An account's own row (issue 35, ADR 0028): until now an account was only a text column on each table. The
-- row holds the account's settings and state; the authentication statement returns it with the key, so
-- reading it costs no round trip. Columns not yet read by code are reserved for the capabilities named in
-- ADR 0028 (sandbox, quotas, sending pause, retention); null means "the installation's default".
create table accounts (
  account text primary key check (account ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$'),
  created_at timestamptz not null default now(),
  -- Reserved: a sandboxed account's mail is captured, not delivered.
  sandbox boolean not null default false,
  -- Reserved: a paused account may not send; who paused it, when and why.
  sending_status text not null default 'active' check (sending_status in ('active', 'paused')),
  paused_reason text,
  paused_at timestamptz,
  paused_by text,
  check ((sending_status = 'paused') = (paused_at is not null)),
  -- Requests per second for all the account's keys together; null: MAILROOM_RATE_LIMIT_PER_ACCOUNT.
  rate_limit_per_second integer check (rate_limit_per_second >= 0),
  -- Reserved: emails accepted per day; null: no quota.
  daily_send_limit integer check (daily_send_limit >= 0),
  -- Reserved: days finished emails are kept; null: MAILROOM_EMAIL_RETENTION_DAYS.
  retention_days integer check (retention_days >= 0)
);

-- Every account in use gets its row. The large tables are read by skipping through an index that starts
-- with the account (one probe per account, not a scan); webhook events are short-lived (retention) and
-- read whole. Names that are not valid accounts cannot have been written by a key and are left out.
insert into accounts (account)
select account from (
  select account from api_keys
  union select account from domains
  union select account from templates
  union select account from webhook_endpoints
  union select account from webhook_events
  union (
    with recursive s(account) as (
      (select account from emails order by account limit 1)
      union all
      select (select e.account from emails e where e.account > s.account order by e.account limit 1)
      from s where s.account is not null
    ) select account from s where account is not null
  )
  union (
    with recursive s(account) as (
      (select account from suppressions order by account limit 1)
      union all
      select (select x.account from suppressions x where x.account > s.account order by x.account limit 1)
      from s where s.account is not null
    ) select account from s where account is not null
  )
  union (
    with recursive s(account) as (
      (select account from idempotency_keys order by account limit 1)
      union all
      select (select i.account from idempotency_keys i where i.account > s.account order by i.account limit 1)
      from s where s.account is not null
    ) select account from s where account is not null
  )
) used
where account ~ '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$';

-- The resources an account owns cannot outlive or precede its row: their create statements add the row
-- (mailroom_ensure_account) in the same statement.
alter table api_keys add constraint api_keys_account_fkey foreign key (account) references accounts (account);
alter table domains add constraint domains_account_fkey foreign key (account) references accounts (account);
alter table templates add constraint templates_account_fkey foreign key (account) references accounts (account);
alter table webhook_endpoints
  add constraint webhook_endpoints_account_fkey foreign key (account) references accounts (account);
