-- Up Migration
-- Second step of partitioning `emails` (ADR 0055): proves the bound 0150 added. VALIDATE CONSTRAINT reads the
-- whole table but holds only a SHARE UPDATE EXCLUSIVE lock, so the running programs keep reading and writing
-- emails meanwhile; it is in a transaction of its own because 0150's ADD took an exclusive lock, held until
-- that transaction ends.
do $$
begin
  if exists (select 1 from pg_constraint where conrelid = 'emails'::regclass and conname = 'emails_legacy_bound') then
    alter table emails validate constraint emails_legacy_bound;
  end if;
end $$;
