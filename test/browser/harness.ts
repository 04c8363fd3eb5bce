import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "@mailroom/core/config";
import { createKey, type Scope } from "@mailroom/core/keys";
import { createApiMetrics, createLogger } from "@mailroom/core/telemetry";
import { ensureLocalCertificates } from "@mailroom/core/tls";
import { publishShapingState, type ShapingStateRow } from "@mailroom/core/transit";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { startApiServer } from "../../api/src/index.ts";
import { startSmtpCapture, storeByMessageId } from "../../cli/src/smtp-capture.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { httpsRequest } from "../support/https.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";
import { startWorkerStack, TEST_KEK } from "../support/stack.ts";

export const CHROMIUM = "/usr/bin/chromium";

/**
 * Whether the browser tests can run. `make test` installs Debian's chromium (scripts/install-system-packages.sh),
 * so in CI it is always there; only a developer machine without root may lack it, and then we say why.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.getuid?.() === 0)
    throw new Error(`${CHROMIUM} is missing: run scripts/install-system-packages.sh`);
  console.warn(`skipping browser tests: ${CHROMIUM} is missing (install the Debian package chromium)`);
  return false;
}

/**
 * A local run in miniature: a test database, the real worker delivering to the real capture SMTP server of
 * `mailroom run`, and the API serving the console with the dev inbox it fills. With `production`, an
 * install's shape instead: the worker relays to a real SMTP server (`sink`, the world outside), and only
 * sandbox keys' mail reaches the dev inbox, through the worker's capture transport.
 */
export interface ConsoleStack {
  db: TestDatabase;
  base: string;
  /** `production` stacks only: the relay everything live is delivered to. */
  sink?: SmtpSink;
  keyWith(scopes: Scope[], account?: string, mode?: "live" | "sandbox"): Promise<string>;
  /** One API call as a client would make it; throws unless it answers 2xx. */
  call(key: string, method: string, route: string, body?: unknown): Promise<Record<string, unknown>>;
  send(key: string, body: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startConsoleStack(
  env: Record<string, string> = {},
  options: { production?: boolean } = {},
): Promise<ConsoleStack> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mailroom-console-"));
  const db = await createTestDatabase();
  const next = options.production
    ? await startSmtpSink()
    : await startSmtpCapture({ host: "127.0.0.1", port: 0, store: storeByMessageId(db.pool) });
  const worker = await startWorkerStack(db, `smtp://127.0.0.1:${next.port}`, env);
  const tls = await ensureLocalCertificates(path.join(dir, "tls"), ["localhost", "127.0.0.1"]);
  const config = loadConfig({
    MAILROOM_API_PORT: "0",
    DATABASE_URL: db.url,
    MAILROOM_ALLOW_UNVERIFIED_FROM: "true",
    ...env,
  });
  const server = await startApiServer(
    {
      config,
      pool: db.pool,
      logger: createLogger({ level: "silent", name: "test" }),
      metrics: createApiMetrics(),
      kek: TEST_KEK,
    },
    { cert: await readFile(tls.certFile), key: await readFile(tls.keyFile) },
  );
  const ca = await readFile(tls.caCertFile);
  const base = `https://localhost:${server.port}`;
  const call: ConsoleStack["call"] = async (key, method, route, body) => {
    const response = await httpsRequest(`${base}${route}`, {
      ca,
      method,
      body,
      headers: { authorization: `Bearer ${key}` },
    });
    if (response.status < 200 || response.status > 299) {
      throw new Error(`${method} ${route} answered ${response.status}: ${response.text}`);
    }
    return response.json;
  };
  return {
    db,
    base,
    ...(options.production ? { sink: next as SmtpSink } : {}),
    keyWith: async (scopes, account = "default", mode = "live") =>
      (await createKey(db.pool, { account, scopes, expires: "never", mode })).fullKey,
    call,
    send: async (key, body) => (await call(key, "POST", "/v1/send", body)).messageId as string,
    close: async () => {
      await server.close();
      await worker.stop();
      await next.close();
      await db.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium, headless, with a fresh profile; the local CA is not trusted, so TLS errors are ignored. */
export async function launchChromium(
  extraArgs: string[] = [],
): Promise<{ browser: Browser; close(): Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...extraArgs,
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  return { browser, close: () => browser.close() };
}

export async function newPage(
  browser: Browser,
  viewport = { width: 1280, height: 900 },
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`${message.text()} (${message.location().url})`);
  });
  return { context, page, errors };
}

/** Opens the console and signs in with `key`. */
export async function signIn(page: Page, base: string, key: string, hash = ""): Promise<void> {
  await page.goto(`${base}/console/${hash}`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/**
 * Writes docs/screenshots/<name>.png when MAILROOM_SCREENSHOTS=1 (how the README's pictures are made:
 * `MAILROOM_SCREENSHOTS=1 npx vitest run test/browser`); otherwise does nothing.
 */
export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  if (process.env.MAILROOM_SCREENSHOTS !== "1") return;
  await page.waitForTimeout(300);
  await page.screenshot({
    path: path.join(import.meta.dirname, "../../docs/screenshots", `${name}.png`),
    fullPage,
  });
}

/**
 * A worker's shaping state, published as the worker's publisher does: now and every second until the returned
 * stop is called (a state not refreshed for 30 s is ignored by readers, and a loaded machine can take that long
 * between a test's setup and its page).
 */
export async function keepPublishingShaping(
  pool: TestDatabase["pool"],
  workerId: string,
  states: ShapingStateRow[],
): Promise<() => Promise<void>> {
  const publish = () => publishShapingState(pool, workerId, states);
  await publish();
  let last = Promise.resolve();
  const timer = setInterval(() => {
    last = last.then(publish).catch(() => undefined);
  }, 1_000);
  return async () => {
    clearInterval(timer);
    await last;
  };
}
