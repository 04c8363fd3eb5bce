/**
 * The orchestrator's side of the SMTP sink (sink.ts, its own process): starting it, counting and
 * resetting what arrived, waiting for a phase's messages, and checking a sample's DKIM signatures with a
 * verifier that shares no code with either signer.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { type DomainRecord, splitTxtValue } from "@mailroom/core/domains";
import { dkimVerify } from "mailauth/lib/dkim/verify.js";
import { type Child, forkChild } from "../shared/support.ts";
import { now, type SinkCommand, type SinkMessage, type SinkReport } from "./protocol.ts";
import type { ArrivalCheck } from "./report.ts";
import type { DeliveryRun } from "./setup.ts";

/** The longest a wait for the sink may take: 2 min, or 20 emails/s; the whole run has its own hard limit. */
const WAIT_LIMIT_MS = 120_000;
export const waitLimitMs = (emails: number) => Math.max(WAIT_LIMIT_MS, emails * 50);
const DKIM_SAMPLES = 5;

type SinkChild = Child<SinkCommand, SinkMessage>;

export interface Sink {
  url: string;
  /** The sink process (bench/fairness places it in a CPU group of its own). */
  pid: number | undefined;
  reset(): Promise<void>;
  count(): Promise<number>;
  report(): Promise<SinkReport>;
  /** Polls until `expected` messages arrived (progress every 2 s), or throws after `waitLimitMs`. */
  waitFor(expected: number, label: string, since: number): Promise<void>;
}

export async function startSink(run: Pick<DeliveryRun, "say" | "onCleanup">): Promise<Sink> {
  const { say } = run;
  const child: SinkChild = forkChild(new URL("./sink.ts", import.meta.url), false);
  run.onCleanup(async () => {
    child.send({ type: "stop" });
    await child.stop(5_000);
  });
  const { port } = await child.next("ready", 30_000);
  say(`› SMTP sink up (pid ${child.pid}) on smtp://127.0.0.1:${port}`);
  const count = async () => {
    child.send({ type: "count" });
    return (await child.next("count", 10_000)).count;
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    pid: child.pid,
    reset: async () => {
      child.send({ type: "reset" });
      await child.next("reset", 10_000);
    },
    count,
    report: async () => {
      child.send({ type: "report", samples: DKIM_SAMPLES });
      return (await child.next("report", 30_000)).report;
    },
    waitFor: async (expected, label, since) => {
      const limit = waitLimitMs(expected);
      const deadline = performance.now() + limit;
      let lastPrint = performance.now();
      for (;;) {
        const got = await count();
        if (got >= expected) return;
        if (performance.now() > deadline) {
          throw new Error(`${label}: the sink has ${got}/${expected} messages after ${limit / 1000} s`);
        }
        if (performance.now() - lastPrint >= 2_000) {
          const elapsed = (now() - since) / 1000;
          say(
            `    ${label} ${elapsed.toFixed(0)} s: ${got}/${expected} at the sink (${Math.round(got / elapsed)}/s)`,
          );
          lastPrint = performance.now();
        }
        await sleep(100);
      }
    },
  };
}

/** DKIM, checked by mailauth against the domain's own records, so neither signer grades itself. */
export async function verifySamples(
  samples: readonly Buffer[],
  domain: DomainRecord,
): Promise<ArrivalCheck["dkim"]> {
  const records = new Map(
    domain.records.filter((r) => r.purpose === "dkim").map((r) => [r.name, splitTxtValue(r.value)]),
  );
  const problems: string[] = [];
  let pass = 0;
  for (const sample of samples) {
    const { results } = await dkimVerify(sample, {
      resolver: async (name: string, rr: string) => {
        const strings = rr === "TXT" ? records.get(name) : undefined;
        if (!strings) throw Object.assign(new Error(`no ${rr} record for ${name}`), { code: "ENOTFOUND" });
        return [strings];
      },
    });
    const verdicts = results.map((r) => r.status.result);
    if (verdicts.length > 0 && verdicts.every((v) => v === "pass")) pass += 1;
    else if (problems.length < 3) problems.push(verdicts.join("/") || "no signature");
  }
  return { pass, sampled: samples.length, problems };
}
