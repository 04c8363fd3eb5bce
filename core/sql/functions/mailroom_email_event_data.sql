-- The data of an `email.*` webhook event. One shape everywhere (accept, delivery, cancel, revocation).
create or replace function mailroom_email_event_data(
  p_id uuid, p_from text, p_to text[], p_subject text, p_tags jsonb, p_category text
) returns jsonb language sql immutable parallel safe as $$
  select jsonb_build_object('emailId', p_id, 'from', p_from, 'to', p_to, 'subject', p_subject, 'tags', p_tags,
                            'category', p_category)
$$;
