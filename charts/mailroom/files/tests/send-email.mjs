// `helm test` for Mailroom, with the key the operator wrote. With TEST_FROM (an address on a verified sending
// domain): send one email through the API, check the answer, and optionally wait until the worker has handed
// it over. Without it (a fresh install has no verified domain): check the API end to end short of sending —
// TLS, the key, the send route refusing an unverified from-domain (422 domain_not_verified, so nothing is
// queued), and the email log reading Postgres. docs/adr/0011 says why. Plain Node (fetch), no dependencies.
import { readFile } from "node:fs/promises";
import https from "node:https";

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

/** GET on the Kubernetes API with the pod's ServiceAccount token: { status, body }. */
async function kubeGet(path) {
  const account = env.TEST_SERVICE_ACCOUNT_DIR ?? "/var/run/secrets/kubernetes.io/serviceaccount";
  const token = (await readFile(`${account}/token`, "utf8")).trim();
  const ca = await readFile(`${account}/ca.crt`);
  return new Promise((resolve, reject) => {
    const request = https.get(
      {
        host: env.KUBERNETES_SERVICE_HOST,
        port: env.KUBERNETES_SERVICE_PORT ?? 443,
        path,
        ca,
        headers: { authorization: `Bearer ${token}`, accept: "application/json" },
        timeout: 10_000,
      },
      (response) => {
        let body = "";
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode, body }));
      },
    );
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", reject);
  });
}

/**
 * The key from TEST_API_KEY_SECRET (`<namespace>/<name>`), read through the Kubernetes API: the operator writes
 * it where it watches, which may not be this pod's namespace (a pod mounts Secrets of its own namespace only).
 * 404 means the operator has not written it yet: wait for it, as the kubelet waits for a mounted one.
 */
async function keyFromSecret(ref) {
  const [namespace, name] = ref.split("/");
  const waitMs = Number(env.TEST_KEY_WAIT_SECONDS ?? 120) * 1000;
  const started = Date.now();
  let last = "";
  while (Date.now() - started < waitMs) {
    try {
      const answer = await kubeGet(`/api/v1/namespaces/${namespace}/secrets/${name}`);
      if (answer.status === 200) {
        const data = JSON.parse(answer.body).data ?? {};
        if (data.apiKey) return Buffer.from(data.apiKey, "base64").toString("utf8").trim();
        last = `Secret ${ref} has no apiKey`;
      } else if (answer.status === 404) {
        last = `Secret ${ref} not written yet`;
      } else {
        fail(`reading Secret ${ref} answered HTTP ${answer.status}: ${answer.body}`);
      }
    } catch (error) {
      last = error.message;
    }
    await sleep(retryDelayMs);
  }
  fail(`no key after ${waitMs / 1000} s: ${last}`);
}

if (!baseUrl) fail("MAILROOM_URL is not set");
const key = env.TEST_API_KEY_SECRET
  ? await keyFromSecret(env.TEST_API_KEY_SECRET)
  : (await readFile(keyFile, "utf8")).trim();

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
