-- The smallest UUIDv7 of the millisecond `t` falls in (clamped to the 48-bit range of the id's time field).
create or replace function mailroom_uuidv7_floor(t timestamptz) returns uuid
language sql immutable parallel safe strict as $$
  select (lpad(to_hex(greatest(0, least(281474976710655, floor(extract(epoch from t) * 1000)))::bigint), 12, '0')
          || '00000000000000000000')::uuid
$$;
