// `helm test` for Mailroom, with the key the operator wrote. With TEST_FROM (an address on a verified sending
// domain): send one email through the API, check the answer, and optionally wait until the worker has handed
// it over. Without it (a fresh install has no verified domain): check the API end to end short of sending —
// TLS, the key, the send route refusing an unverified from-domain (422 domain_not_verified, so nothing is
// queued), and the email log reading Postgres. docs/adr/0011 says why. Plain Node (fetch), no dependencies.
import { readFile } from "node:fs/promises";

const env = process.env;
const baseUrl = env.MAILROOM_URL;
const keyFile = env.TEST_API_KEY_FILE ?? "/etc/mailroom/api-key/apiKey";
const attempts = Number(env.TEST_ATTEMPTS ?? 30);
const retryDelayMs = Number(env.TEST_RETRY_DELAY_MS ?? 2000);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function fail(message) {
  console.error(`helm test: FAILED: ${message}`);
  process.exit(1);
}

/** One API call, retried while the API is starting (connection refused, 503) or rate limited (429). */
async function call(method, path, key, body) {
  let last = "";
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const response = await fetch(new URL(path, baseUrl), {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      if (response.status !== 503 && response.status !== 429) return { status: response.status, text };
      last = `HTTP ${response.status} ${text}`;
    } catch (error) {
      last = `${error.message}${error.cause ? ` (${error.cause.code ?? error.cause.message})` : ""}`;
    }
    await sleep(retryDelayMs);
  }
  fail(`${method} ${path}: no answer after ${attempts} attempts: ${last}`);
}

if (!baseUrl) fail("MAILROOM_URL is not set");
const key = (await readFile(keyFile, "utf8")).trim();

function parse(answer, what) {
  try {
    return JSON.parse(answer.text);
  } catch {
    fail(`${what} answered HTTP ${answer.status} with a body that is not JSON: ${answer.text}`);
  }
}

if (!env.TEST_FROM) {
  // A domain under .invalid (RFC 2606) can never be verified, so this request must be refused before anything
  // is written: a 200 here means the from-domain rule is off on an install that says it is on.
  const probe = await call("POST", "/v1/send", key, {
    from: "helm-test@helm-test.invalid",
    to: env.TEST_TO,
    subject: "Mailroom helm test (never sent)",
    text: "Refused by design: helm-test.invalid is not a verified sending domain.",
  });
  if (probe.status !== 422 || parse(probe, "POST /v1/send").error !== "domain_not_verified") {
    fail(`POST /v1/send from an unverified domain answered HTTP ${probe.status} ${probe.text}; expected 422 domain_not_verified`);
  }
  console.log("helm test: TLS and API key accepted; a send from an unverified domain is refused (422)");
  const log = await call("GET", "/v1/emails?limit=1", key);
  if (log.status !== 200 || !Array.isArray(parse(log, "GET /v1/emails").data)) {
    fail(`GET /v1/emails answered HTTP ${log.status}: ${log.text}`);
  }
  console.log("helm test: the email log answers (Postgres reachable)");
  console.log("helm test: OK (no email sent: set tests.from to an address on a verified SendingDomain to send one)");
  process.exit(0);
}

const sent = await call("POST", "/v1/send", key, {
  from: env.TEST_FROM,
  to: env.TEST_TO,
  subject: "Mailroom helm test",
  text: "Sent by `helm test` to check this Mailroom installation.",
  idempotencyKey: env.TEST_IDEMPOTENCY_KEY,
});
const answer = parse(sent, "POST /v1/send");
if (sent.status !== 200 || !["queued", "duplicate"].includes(answer.status) || !answer.messageId) {
  fail(`POST /v1/send answered HTTP ${sent.status}: ${sent.text}`);
}
console.log(`helm test: accepted, ${answer.status}, messageId ${answer.messageId}`);

if (env.TEST_WAIT_FOR_DELIVERY === "true") {
  const deadline = Date.now() + Number(env.TEST_DELIVERY_TIMEOUT_SECONDS ?? 120) * 1000;
  let status = "";
  while (Date.now() < deadline) {
    const got = await call("GET", `/v1/emails/${encodeURIComponent(answer.messageId)}`, key);
    if (got.status !== 200) fail(`GET /v1/emails/${answer.messageId} answered HTTP ${got.status}: ${got.text}`);
    status = JSON.parse(got.text).status;
    if (status === "delivered") break;
    if (["bounced", "failed", "canceled"].includes(status)) fail(`the email ended ${status}: ${got.text}`);
    await sleep(retryDelayMs);
  }
  if (status !== "delivered") fail(`the email is still ${status || "unknown"} after the delivery timeout`);
  console.log("helm test: delivered");
}
console.log("helm test: OK");
