import { setTimeout as sleep } from "node:timers/promises";
import { migrate } from "@mailroom/core/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRelease, type PreviousRelease, previousRelease } from "../../scripts/previous-release.ts";
import { leftovers } from "../fault/support/leftovers.ts";
import type { Program } from "../fault/support/programs.ts";
import { startRetryingLoad, submitOnce } from "../fault/support/retrying-load.ts";
import { deliveryCounts, eventually, type Scenario, startScenario } from "../fault/support/scenario.ts";
import { type PreviousDatabase, startPreviousDatabase } from "./support/previous-database.ts";

// Issue 28 item 4: the previous release's API, two workers and SMTP door run under a send load that retries
// 429/503 with the same idempotencyKey; the new migrations are applied while they run; then each program is
// rolled to this checkout's code, one at a time, new beside old for a while, as a Deployment with
// maxUnavailable 0 does. Prints `upgrade: accepted N delivered N lost N duplicated N`.

const progress = (line: string) =>
  process.stdout.write(`[upgrade ${new Date().toISOString().slice(11, 23)}] ${line}\n`);
/** How long old and new run side by side at each step, under load. */
const SIDE_BY_SIDE_MS = 4_000;

let release: PreviousRelease;
let previousBin: string;
let world: Scenario<PreviousDatabase>;

beforeAll(async () => {
  release = previousRelease();
  previousBin = buildRelease(release, progress);
  world = await startScenario("upgrade", () => startPreviousDatabase(previousBin, progress));
}, 900_000);
afterAll(async () => {
  await world?.close();
}, 60_000);

const ACCEPTED = "mailroom_emails_accepted_total";
const DELIVERED = "mailroom_delivery_outcomes_total";

describe("rolling upgrade from the previous release under load", () => {
  it("loses no accepted email, answers no 5xx but 503, delivers each queued email once", async () => {
    progress(`from ${release.version} (${release.commit.slice(0, 12)}) to this checkout`);
    const old = {
      api: await world.api("api-old", {}, previousBin),
      workers: [
        await world.worker("worker-a-old", {}, previousBin),
        await world.worker("worker-b-old", {}, previousBin),
      ],
      smtp: await world.smtp("smtp-old", previousBin),
    };
    // The load's requests go round the APIs in service, as a Service spreads them over ready pods.
    const serving: Program[] = [old.api];
    let turn = 0;
    const nextApi = () => (serving[turn++ % serving.length] as Program).apiUrl();
    const load = startRetryingLoad(nextApi, world.ca, world.key, { label: "upgrade" });
    const flowing = await eventually(async () => world.sink.messages.length >= 20, 60_000);
    expect(flowing, "mail flows through the previous release").toBe(true);

    // 1. The new migrations (and the new bodies of the SQL functions) while the previous release runs.
    const { applied } = await migrate({ url: world.cluster.url });
    progress(`new migrations applied under load: ${applied.join(", ") || "none (functions re-applied)"}`);
    // What the old programs had done before the new schema: what they do after it is the side-by-side proof.
    const oldApiBefore = await old.api.metric(ACCEPTED);
    const oldWorkersBefore = await Promise.all(old.workers.map((w) => w.metric(DELIVERED)));
    await sleep(SIDE_BY_SIDE_MS);
    const smtpOld = await submitOnce(old.smtp.submissionPort(), world.ca, world.key, "upgrade-smtp-old");

    // 2. The API: the new one joins, both serve, then the old one leaves (out of the rotation, then SIGTERM).
    const api = await world.api("api-new");
    serving.push(api);
    await sleep(SIDE_BY_SIDE_MS);
    serving.splice(serving.indexOf(old.api), 1);
    const oldApiAccepted = (await old.api.metric(ACCEPTED)) - oldApiBefore;
    await old.api.stop();
    progress(`api rolled (the old one accepted ${oldApiAccepted} on the new schema)`);

    // 3. The workers, one at a time: a new one starts, then an old one stops; old and new deliver together.
    const workers: Program[] = [];
    const oldDelivered: number[] = [];
    for (const [i, worker] of old.workers.entries()) {
      workers.push(await world.worker(`worker-${"ab"[i]}-new`));
      await sleep(SIDE_BY_SIDE_MS);
      oldDelivered.push((await worker.metric(DELIVERED)) - (oldWorkersBefore[i] ?? 0));
      await worker.stop();
      progress(
        `${worker.name} rolled (it recorded ${oldDelivered.at(-1)} delivery outcomes on the new schema)`,
      );
    }

    // 4. The SMTP door: the new one listens beside the old one; each takes a message; the old one stops.
    const smtp = await world.smtp("smtp-new");
    const [smtpBoth, smtpNew] = await Promise.all([
      submitOnce(old.smtp.submissionPort(), world.ca, world.key, "upgrade-smtp-old-beside-new"),
      submitOnce(smtp.submissionPort(), world.ca, world.key, "upgrade-smtp-new"),
    ]);
    await old.smtp.stop();
    progress("smtp rolled");

    // The new programs alone carry the load for a while, then the load stops and every email is owed.
    await sleep(SIDE_BY_SIDE_MS);
    await load.stop();
    const ids = [...load.accepted.keys()];
    await eventually(async () => {
      const counts = deliveryCounts(world.sink);
      return ids.every((id) => counts.has(id));
    }, 90_000);
    const counts = deliveryCounts(world.sink);
    const delivered = ids.filter((id) => counts.has(id)).length;
    const duplicated = ids.reduce((n, id) => n + Math.max(0, (counts.get(id) ?? 0) - 1), 0);
    process.stdout.write(
      `upgrade: accepted ${ids.length} delivered ${delivered} lost ${ids.length - delivered} duplicated ${duplicated}\n`,
    );
    progress(`answers ${JSON.stringify(Object.fromEntries(load.answers))}`);
    // A repeated delivery names itself with its timeline and handovers, so a red run says which step repeated it.
    for (const id of ids.filter((i) => (counts.get(i) ?? 0) > 1)) {
      const { rows: events } = await world.probe.query(
        "select type, at, detail from email_events where email_id = $1 order by at",
        [id],
      );
      const handovers = world.sink.messages
        .filter((m) => m.parsed.messageId?.startsWith(`<${id}@`))
        .map((m) => m.receivedAt);
      progress(
        `duplicated ${id}: handed over at ${JSON.stringify(handovers)}; timeline ${JSON.stringify(events)}`,
      );
    }

    expect(ids.length).toBeGreaterThan(50);
    expect(ids.length - delivered, "accepted emails never delivered").toBe(0);
    // Each program was stopped gracefully (SIGTERM, as a rollout does): a graceful stop finishes or returns its
    // deliveries, so at-least-once never needs to repeat one here.
    expect(duplicated).toBe(0);
    expect([...load.answers.keys()].filter((s) => s.startsWith("5") && s !== "503")).toEqual([]);
    // Every email answered 2xx is a row: none was acknowledged and then lost.
    const { rows } = await world.probe.query<{ n: string }>(
      "select count(*) as n from emails where id = any($1::uuid[])",
      [ids],
    );
    expect(Number(rows[0]?.n)).toBe(ids.length);
    // Old and new really ran side by side: on the new schema, the old API accepted and each old worker delivered.
    expect(oldApiAccepted).toBeGreaterThan(0);
    for (const n of oldDelivered) expect(n).toBeGreaterThan(0);
    for (const reply of [smtpOld, smtpBoth, smtpNew]) expect(reply).toMatch(/^250 /);
    const smtpDelivered = await eventually(async () => {
      const subjects = new Set(world.sink.messages.map((m) => m.parsed.subject));
      return ["upgrade-smtp-old", "upgrade-smtp-old-beside-new", "upgrade-smtp-new"].every((s) =>
        subjects.has(s),
      );
    }, 60_000);
    expect(smtpDelivered, "the messages of both SMTP doors were delivered").toBe(true);
    for (const p of [api, ...workers, smtp]) expect(p.restarts, `${p.name} exited`).toBe(0);
    expect(await leftovers(world.probe)).toEqual({ lockedJobs: 0, unsettled: 0 });
  }, 600_000);
});
