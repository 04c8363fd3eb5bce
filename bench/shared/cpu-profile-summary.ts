/**
 * Where a worker's CPU went, from a V8 CPU profile (`BENCH_CPU_PROF=<dir> npx node bench/delivery/main.ts` writes
 * one per process): every sample's time goes to the nearest frame on its stack (leaf first) that belongs to a
 * step of a delivery — compose, DKIM signing, the SMTP client, graphile-worker's job fetch and completion,
 * core's claim and record — and only when no such frame is on the stack to what ran below it (the pg
 * driver parsing answers, Node's sockets and streams, logging, GC). Module loading at start-up and idle time
 * are left out. Samples are spaced in wall time, so on a busy machine a preempted thread's wait lands on
 * whatever it was running: read the shares, and turn them into milliseconds with the main thread's measured
 * CPU per message (bench/delivery/main.ts prints it: "of which the main thread … ms"). The leaves of the
 * unattributed time are listed too (they are callbacks: socket writes, stream teardown, timers).
 *
 * Run: `npx node bench/shared/cpu-profile-summary.ts <file.cpuprofile> [main-thread CPU ms per message]`.
 */
import { readFile } from "node:fs/promises";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Steps of a delivery, by the source of a frame (`<url>#<function>`): the nearest such frame to the leaf
 * takes the sample.
 */
const STEPS: [string, RegExp][] = [
  ["DKIM signing (core's signer, RSA)", /core\/src\/domains\/dkim|worker\/src\/signing|dkim-signer/],
  [
    "compose (MIME build of the stored email)",
    /worker\/src\/compose\/|nodemailer\/(lib|dist\/\w+)\/(mime-node|mail-composer|mime-funcs|qp|base64|punycode|addressparser)/,
  ],
  [
    "SMTP client (nodemailer pool and connection)",
    /worker\/src\/transports|nodemailer\/(lib|dist\/\w+)\/(smtp-|mailer|shared)/,
  ],
  ["claim and record (core's delivery store)", /core\/src\/emails\/|core\/src\/db\//],
  ["job fetch and completion (graphile-worker)", /graphile-worker|@graphile\//],
  [
    "logging and telemetry (pino, OpenTelemetry, prom-client)",
    /pino|sonic-boom|opentelemetry|prom-client|core\/src\/telemetry/,
  ],
];
/** What ran when no step is on the stack (callbacks of sockets and promises), first match anywhere on it. */
const LEAVES: [string, RegExp][] = [
  ["pg driver (protocol, parsing answers)", /node_modules\/(pg|pg-protocol|pg-pool|pg-types|postgres-)/],
  ["Node sockets, streams, timers (unattributed)", /^node:/],
];

function categorise(stack: ProfileNode[]): string | undefined {
  const leaf = stack[0];
  const name = leaf?.callFrame.functionName;
  if (name === "(idle)") return undefined;
  if (name === "(garbage collector)") return "garbage collection";
  if (stack.some((n) => /node:internal\/modules/.test(n.callFrame.url))) return undefined; // start-up
  for (const node of stack) {
    const frame = `${node.callFrame.url}#${node.callFrame.functionName}`;
    for (const [step, pattern] of STEPS) if (pattern.test(frame)) return step;
  }
  // Native leaves (writev, …) have no source: the nearest frame that has one says what ran.
  for (const [what, pattern] of LEAVES) if (stack.some((n) => pattern.test(n.callFrame.url))) return what;
  return name === "(program)" ? "V8 and native (program)" : "other";
}

const [file, perMessageArg] = process.argv.slice(2);
if (!file || file === "--help") {
  process.stdout.write(
    "Usage: npx node bench/shared/cpu-profile-summary.ts <file.cpuprofile> [messages delivered]\n",
  );
  process.exit(file ? 0 : 2);
}
const profile = JSON.parse(await readFile(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const category = new Map<number, string | undefined>();
const totals = new Map<string, number>();
const unattributed = new Map<string, number>();
profile.samples.forEach((id, i) => {
  if (!category.has(id)) {
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (node) stack.push(node);
    }
    category.set(id, categorise(stack));
  }
  const what = category.get(id);
  // A sample's time is the delta to the next sample.
  const us = profile.timeDeltas[i + 1] ?? 0;
  if (what) totals.set(what, (totals.get(what) ?? 0) + us);
  if (what?.includes("unattributed")) {
    const leaf = byId.get(id)?.callFrame;
    const up = byId.get(parent.get(id) ?? -1)?.callFrame;
    const key = `${leaf?.functionName || "(anonymous)"} < ${up?.functionName || "(anonymous)"} (${up?.url ?? ""})`;
    unattributed.set(key, (unattributed.get(key) ?? 0) + us);
  }
});
const perMessageMs = Number(perMessageArg ?? 0);
const all = [...totals.values()].reduce((a, b) => a + b, 0);
const rows = [...totals.entries()].sort((a, b) => b[1] - a[1]);
process.stdout.write("| where | CPU ms | share | ms per message |\n|---|---:|---:|---:|\n");
for (const [what, us] of [...rows, ["**total (start-up and idle left out)**", all] as const]) {
  const perMessage = perMessageMs > 0 ? ((perMessageMs * us) / all).toFixed(3) : "n/a";
  process.stdout.write(
    `| ${what} | ${(us / 1000).toFixed(0)} | ${((100 * us) / all).toFixed(1)} % | ${perMessage} |\n`,
  );
}
process.stdout.write("\nLargest unattributed leaves (leaf < caller):\n");
for (const [key, us] of [...unattributed.entries()].sort((a, b) => b[1] - a[1]).slice(0, 8)) {
  process.stdout.write(`- ${((100 * us) / all).toFixed(1)} %: ${key}\n`);
}
