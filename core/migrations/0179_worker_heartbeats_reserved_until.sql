-- Up Migration
-- Until when a worker id beating here belongs to a live reserved delivery lane (ADR 0064, ADR 0074): its
-- process's heartbeat sets it two beats ahead for its reserved lane's ids, null for every other id (and for a
-- worker of an earlier release). While any such id is fresh, `mailroom_enqueue_deliver` adds the jobs within
-- their account's fair share as `deliver_reserved`, which only the reserved lane fetches; once none is, it adds
-- them as `deliver` again, which every delivery lane runs.
alter table worker_heartbeats add column if not exists reserved_until timestamptz;
