-- Claims several emails in one statement (concurrent deliveries share it): one by one in id order, so two
-- statements claiming overlapping emails lock them in the same order. One row per email, with its id.
create or replace function mailroom_claim_emails(p_email_ids uuid[], p_nows timestamptz[], p_event_ids uuid[])
returns table (email_id uuid, outcome text, reason text, has_attachments boolean, email emails)
language plpgsql as $$
declare
  i int;
begin
  for i in select u.i from unnest(p_email_ids) with ordinality as u(id, i) order by u.id loop
    return query select p_email_ids[i], c.outcome, c.reason, c.has_attachments, c.email
                 from mailroom_claim_email(p_email_ids[i], p_nows[i], p_event_ids[i]) c;
  end loop;
end
$$;
