// `helm test` for Mailroom: send one email through the API with the key the operator wrote, check the answer,
// and optionally wait until the worker has handed it over. Plain Node (fetch), no dependencies.
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
const sent = await call("POST", "/v1/send", key, {
  from: env.TEST_FROM,
  to: env.TEST_TO,
  subject: "Mailroom helm test",
  text: "Sent by `helm test` to check this Mailroom installation.",
  idempotencyKey: env.TEST_IDEMPOTENCY_KEY,
});
let answer;
try {
  answer = JSON.parse(sent.text);
} catch {
  fail(`POST /v1/send answered HTTP ${sent.status} with a body that is not JSON: ${sent.text}`);
}
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
