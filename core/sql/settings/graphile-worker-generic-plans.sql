-- graphile-worker's add_jobs (every accept statement calls it) and add_job are PL/pgSQL over array
-- parameters, for which the planner keeps choosing custom plans: every call re-planned its statements.
-- Generic plans measured ~15 % faster per small accept transaction (one to a few emails). Applied after
-- every migrate (not once in a migration), so a graphile-worker release that re-creates these functions
-- gets the setting back on the next `mailroom migrate`.
-- A generic plan is made once per session, with the statistics of that moment (ADR 0008): made while
-- `_private_jobs` was empty, add_jobs' job-key update joined the whole table by a sequential scan on every
-- later call, whatever the backlog grew to. With sequential scans off inside these functions their plans
-- probe the jobs by index (key, primary key) whatever the statistics said when they were made.
alter function graphile_worker.add_jobs(graphile_worker.job_spec[], boolean)
  set plan_cache_mode = force_generic_plan set enable_seqscan = off;
alter function graphile_worker.add_job(text, json, text, timestamptz, integer, text, integer, text[], text)
  set plan_cache_mode = force_generic_plan set enable_seqscan = off;
