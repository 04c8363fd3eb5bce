import type { Queryable } from "../db/pool.ts";

/** Webhook endpoints by state, for the gauges: `failing` is enabled with a current run of failures. */
export interface EndpointCounts {
  enabled: number;
  failing: number;
  disabled: number;
}

export async function countEndpointsByState(db: Queryable): Promise<EndpointCounts> {
  const { rows } = await db.query<{ enabled: string; failing: string; disabled: string }>(
    `select count(*) filter (where enabled and failing_since is null) as enabled,
            count(*) filter (where enabled and failing_since is not null) as failing,
            count(*) filter (where not enabled) as disabled
       from webhook_endpoints`,
  );
  const row = rows[0];
  return {
    enabled: Number(row?.enabled ?? 0),
    failing: Number(row?.failing ?? 0),
    disabled: Number(row?.disabled ?? 0),
  };
}
