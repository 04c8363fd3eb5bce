-- Up Migration
-- A person's change is recorded as the person (actor_kind `person`, actor = their subject, actor_label =
-- their email) and the key they acted with, here (issue 33 item 5, ADR 0069): the key id alongside, so
-- the trail can be read by person and still tie each change to one credential. Null for every other actor
-- (a key's row already names it in `actor`). Expand-only (ADR 0042).
alter table audit_events add column actor_key_id text;
