-- Releases the mail a paused account's claims held (issue 31): clears the mark and gives each email a keyed
-- `deliver` job due now, in the caller's transaction, which has already made the account active (see the
-- claim's lock order). Called only by core/src/accounts/pause.ts (resume). Returns how many were released.
create or replace function mailroom_release_held_emails(p_account text) returns integer language plpgsql as $$
declare
  v_ids uuid[];
begin
  with released as (
    update emails set held_at = null, updated_at = now()
    where account = p_account and held_at is not null
    returning id
  )
  select coalesce(array_agg(id order by id), '{}') into v_ids from released;
  perform mailroom_enqueue_deliver(v_ids, array_fill(now(), array[cardinality(v_ids)]),
                                   array_fill(null::jsonb, array[cardinality(v_ids)]),
                                   array_fill(true, array[cardinality(v_ids)]));
  return cardinality(v_ids);
end
$$;
