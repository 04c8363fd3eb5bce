-- Up Migration
-- Fair delivery across accounts (issue 31 item 3, ADR 0053). Each account's virtual clock: the time its
-- mail would have been handed over had it been sent at the fair rate (a fixed number of emails per second
-- per account) since it last had nothing waiting. A `deliver` job's priority is how far that clock runs
-- ahead of now when the job is added, so an account sending within the fair rate stays at the front
-- while one with a backlog queues behind it. Written only by mailroom_enqueue_deliver. Unlogged: after a
-- crash or a failover every account starts level, which costs a few minutes of fairness and loses no mail.
create unlogged table delivery_turns (
  account text primary key,
  next_at timestamptz not null
);

-- Jobs added while another transaction held their account's clock: rather than wait for it (which would
-- make one account's concurrent accepts commit one after another), a transaction notes its jobs here, and
-- the next one that holds the clock adds them to it and deletes them. Append-only between those folds.
create unlogged table delivery_turn_credits (
  account text not null,
  jobs integer not null
);
create index delivery_turn_credits_account on delivery_turn_credits (account);
