import { setTimeout as sleep } from "node:timers/promises";
import nodemailer from "nodemailer";
import { httpsRequest } from "../../support/https.ts";

/** One email the load was told is durable: its id, and when the answer came. */
interface Accepted {
  at: number;
  /** The answer was `duplicate`: an earlier attempt had committed though its answer was lost (503, reset). */
  afterLostAnswer: boolean;
}

export interface RetryingLoad {
  /** By messageId: every email answered 2xx (queued, or duplicate of an earlier attempt that committed). */
  accepted: Map<string, Accepted>;
  /** Answers by status code ("error" for a reset or a timeout), over every attempt. */
  answers: Map<string, number>;
  /** Times of the answers that were not 2xx (503, 429, resets, timeouts). */
  failures: number[];
  /** Stops starting emails; resolves once every started email has its 2xx or ran out of retries. */
  stop(): Promise<void>;
}

/**
 * A bounded send load that behaves as the spec asks of a client (§4): each email has its own
 * idempotencyKey and is retried, with the same key and body, after 429, 503 or a lost answer (reset,
 * timeout), until it is answered 2xx. `clients` callers send one email at a time each.
 */
export function startRetryingLoad(
  api: () => string,
  ca: Buffer,
  key: string,
  options: { label: string; clients?: number; pauseMs?: number },
): RetryingLoad {
  const accepted = new Map<string, Accepted>();
  const answers = new Map<string, number>();
  const failures: number[] = [];
  let sequence = 0;
  let stopping = false;
  const count = (answer: string) => answers.set(answer, (answers.get(answer) ?? 0) + 1);

  const sendOne = async () => {
    sequence += 1;
    const body = {
      from: "load@acme.test",
      to: `${options.label}-${sequence}@example.test`,
      subject: `${options.label} ${sequence}`,
      text: "t",
      idempotencyKey: `${options.label}-${sequence}`,
    };
    let lostAnswer = false;
    // Bounded: a client gives up after a minute of refusals (the test then fails on what it expected).
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      let status = "error";
      let json: Record<string, unknown> = {};
      try {
        const res = await httpsRequest(`${api()}/v1/send`, {
          ca,
          headers: { authorization: `Bearer ${key}` },
          body,
          timeoutMs: 15_000,
        });
        status = String(res.status);
        json = res.json;
      } catch {
        // Reset or timeout: the answer is lost, the request may have committed.
      }
      count(status);
      if (status.startsWith("2")) {
        accepted.set(String(json.messageId), {
          at: Date.now(),
          afterLostAnswer: lostAnswer && json.status === "duplicate",
        });
        return;
      }
      failures.push(Date.now());
      if (status !== "503" && status !== "429" && status !== "error") return;
      lostAnswer = true;
      await sleep(250);
    }
  };

  const clients = Array.from({ length: options.clients ?? 4 }, async () => {
    while (!stopping) {
      await sendOne();
      await sleep(options.pauseMs ?? 40);
    }
  });
  return {
    accepted,
    answers,
    failures,
    async stop() {
      stopping = true;
      await Promise.all(clients);
    },
  };
}

/**
 * One message through the SMTP submission door, retried after a temporary refusal or a lost connection
 * with the same Message-ID (the door's idempotency key); resolves with the 250 text.
 */
export async function submitOnce(port: number, ca: Buffer, key: string, label: string): Promise<string> {
  const transport = nodemailer.createTransport({
    host: "127.0.0.1",
    port,
    secure: false,
    requireTLS: true,
    tls: { ca, servername: "localhost" },
    auth: { user: "fault", pass: key },
  });
  const messageId = `<${label}@fault.test>`;
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      try {
        const info = await transport.sendMail({
          from: "load@acme.test",
          to: `${label}@example.test`,
          subject: label,
          text: "t",
          messageId,
        });
        return info.response;
      } catch (error) {
        const code = (error as { responseCode?: number }).responseCode;
        if (
          (code !== undefined && code < 400) ||
          (code !== undefined && code >= 500) ||
          Date.now() > deadline
        )
          throw error;
        await sleep(250);
      }
    }
  } finally {
    transport.close();
  }
}
