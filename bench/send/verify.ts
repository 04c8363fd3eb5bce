/** Correctness side of bench/send/main.ts: a verified first request, and the check that every 2xx left its rows. */
import { request } from "node:https";
import type { Pool } from "@mailroom/core/db";
import { emailsPerRequest, type LoadReport, type ScenarioKind } from "./protocol.ts";
import type { RowCheck } from "./report.ts";

/** One request that verifies the certificate chain with the local CA (autocannon cannot) and must be 2xx. */
export function preflight(
  port: number,
  servername: string,
  route: string,
  ca: string,
  body: string,
  apiKey?: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: route,
        method: "POST",
        ca,
        servername,
        headers: {
          "content-type": "application/json",
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
        });
        res.on("end", () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`preflight ${route}: ${status} ${text.slice(0, 300)}`));
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Waits until the row count stops moving (requests cut off at the end of a run may still be committing). */
export async function settledCount(count: () => Promise<number>): Promise<number> {
  let previous = await count();
  for (let i = 0; i < 40; i++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const current = await count();
    if (current === previous) return current;
    previous = current;
  }
  return previous;
}

export interface Scenario {
  kind: ScenarioKind;
  /** On the database the scenario writes to (the naive durable build has its own). */
  pool: Pool;
  label: string;
  route: string;
  apiKey?: string;
  account?: string;
}

export function rowQueries(scenario: Scenario) {
  const n = async (sql: string, params: unknown[]) =>
    (await scenario.pool.query<{ n: number }>(sql, params)).rows[0]?.n ?? 0;
  if (scenario.kind === "baseline" || scenario.kind === "durable") {
    const table = scenario.kind === "baseline" ? "bench_baseline" : "bench_durable";
    return {
      count: () => n(`select count(*)::int as n from ${table}`, []),
      // The durable baseline's rows count only with their job (graphile-worker's job table; no worker runs).
      found: (ids: string[]) =>
        n(
          `select count(*)::int as n from ${table} b join unnest($1::bigint[]) as u(id) using (id)${
            scenario.kind === "durable"
              ? ` join (select (j.payload->>'id')::bigint as id from graphile_worker._private_jobs j
                        join graphile_worker._private_tasks t on t.id = j.task_id
                        where t.identifier = 'bench_deliver') j using (id)`
              : ""
          }`,
          [ids],
        ),
    };
  }
  return {
    count: () => n("select count(*)::int as n from emails where account = $1", [scenario.account]),
    found: (ids: string[]) =>
      n(
        "select count(*)::int as n from emails e join unnest($2::uuid[]) as u(id) using (id) where e.account = $1",
        [scenario.account, ids],
      ),
  };
}

export function checkRows(
  report: LoadReport,
  ok2xx: number,
  added: number,
  found: number,
  kind: ScenarioKind,
) {
  const per = emailsPerRequest(kind);
  const reported = report.ids.length;
  const distinct = new Set(report.ids).size;
  const cutOff = added - found;
  const maxCutOff = Math.max(0, report.sent - report.answered) * per;
  const problem =
    reported !== ok2xx * per
      ? `2xx answers reported ${reported} emails, expected ${ok2xx * per}`
      : distinct !== reported
        ? `${reported - distinct} ids reported twice`
        : found !== distinct
          ? `${distinct - found} reported ids have no row`
          : cutOff < 0 || cutOff > maxCutOff
            ? `${cutOff} rows beyond the 2xx answers (at most ${maxCutOff} were in flight at the end)`
            : undefined;
  const check: RowCheck = { ok: problem === undefined, added, reported, cutOff };
  if (problem) check.problem = problem;
  return check;
}
