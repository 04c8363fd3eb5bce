-- Up Migration
-- The reputation guard reads the timeline by event id (mailroom_roll_up_reputation: the highest id, then a
-- range of ids). Before the timeline was partitioned (0070) its primary key served both; the partitioned
-- parent has none, so without this index every roll-up, once a minute, would scan every week of events.
-- An index on the parent is made on each partition, the weeks made later included.
create index if not exists email_events_id on email_events (id);
