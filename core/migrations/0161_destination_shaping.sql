-- Up Migration
-- Each worker process's shaping state per destination (ADR 0059 keeps it in the process's memory; ADR 0066
-- publishes it for the console's transit view): level, concurrency and rate in force, the pause and the reply
-- that caused it. Written only by core/src/transit/shaping-state.ts, called by the worker's publisher
-- (worker/src/shaping-publisher.ts) every few seconds and on a change, each process under its own id. Readers
-- take the latest row per destination among workers that published recently. Unlogged: after a crash the
-- workers restart at full level anyway, and publish again within seconds.
create unlogged table destination_shaping (
  worker_id text not null,
  -- `group:<name>` or `host:<mx>` (worker/src/transports/shaping/destinations.ts).
  destination text not null check (length(destination) <= 260),
  -- The share of the configured limits in force (1: all); below 1 the destination is backed off.
  level real not null,
  concurrency integer not null,
  -- Transactions started per minute allowed now; 0: no rate configured.
  rate_per_minute real not null,
  in_flight integer not null,
  paused_until timestamptz,
  last_reply text not null default '' check (length(last_reply) <= 255),
  updated_at timestamptz not null,
  primary key (worker_id, destination)
);
create index destination_shaping_destination on destination_shaping (destination, updated_at desc);
