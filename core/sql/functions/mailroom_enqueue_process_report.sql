-- The one writer of `process_report` jobs (payload: ProcessReportPayload in core/src/jobs), added with the
-- stored report in the receiver's transaction.
create or replace function mailroom_enqueue_process_report(p_report_id uuid) returns void language plpgsql as $$
begin
  perform graphile_worker.add_job('process_report', json_build_object('reportId', p_report_id),
                                  max_attempts => 10);
end
$$;
