-- Records several attempts in one statement (concurrent deliveries share it), in email id order; `p_attempts`
-- holds one object per attempt with mailroom_record_attempt's arguments by name.
create or replace function mailroom_record_attempts(p_attempts jsonb) returns void language plpgsql as $$
declare
  a jsonb;
begin
  for a in select value from jsonb_array_elements(p_attempts) order by value->>'emailId' loop
    perform mailroom_record_attempt(
      (a->>'emailId')::uuid, a->>'status', a->>'reason', a->>'response', a->'results',
      array(select jsonb_array_elements_text(a->'pending')),
      array(select jsonb_array_elements_text(a->'bounced')),
      array(select jsonb_array_elements_text(a->'bouncedDetail')),
      (a->>'retryAt')::timestamptz, (a->>'eventId')::uuid, a->'detail', a->'trace');
  end loop;
end
$$;
