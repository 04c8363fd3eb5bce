import type { AccountRecord } from "../accounts/index.ts";
import { checkAccountPolicy, countAccountSends } from "../accounts/index.ts";
import type { Pool } from "../db/pool.ts";
import { withTransaction } from "../db/pool.ts";
import { createSenderAuthorizer } from "../domains/authorize.ts";
import { type AcceptRequest, acceptEmails } from "../emails/accept.ts";
import { createAcceptQueue } from "../emails/group-commit.ts";
import { isKnownIdempotencyKey } from "../emails/queries.ts";
import { normalizeSendRequest, requestedTemplate, type SendRequestBody } from "../emails/send-request.ts";
import type { AcceptItem, AcceptResult, EmailSource } from "../emails/types.ts";
import { isMailroomError, MailroomError } from "../errors/index.ts";
import { prepareSimulatorSend } from "../simulator/send.ts";
import { renderTemplateForSend } from "../templates/render-for-send.ts";

const MISMATCH = "This idempotencyKey was already used with a different request body.";

export interface SendDeps {
  pool: Pool;
  /** Right-hand side of generated Message-IDs. */
  hostname: string;
  /** Local runs: any from-domain may send (DESIGN §6's relaxation). */
  allowUnverifiedFrom: boolean;
  /** The mailbox simulator's domain (ADR 0049); undefined: no simulator. */
  simulatorDomain?: string | undefined;
  /** Called with every accepted result (queued, scheduled, duplicate), e.g. to count it. */
  onAccepted?: ((result: AcceptResult) => void) | undefined;
}

/** What every item of one request (or one SMTP transaction) shares: its key, trace context and clock. */
export interface SendContext {
  account: string;
  /**
   * The account's row as the door's authentication read it (ADR 0028): its state and quotas decide here,
   * for both doors, before anything is accepted.
   */
  policy: AccountRecord;
  apiKeyId: string;
  trace?: Record<string, string> | undefined;
  now: Date;
  source?: EmailSource | undefined;
  /** The key's and account's sandbox decision (`capturesMail`, core/src/sandbox), kept on every email. */
  sandbox: boolean;
}

/** A batch item as the caller's schema validation left it: a body, or the error that refused it. */
export interface BatchItem {
  index: number;
  body: unknown;
  error?: MailroomError | undefined;
}

export type BatchPolicy = "strict" | "permissive";

export type BatchItemResult =
  | { index: number; status: "queued" | "scheduled" | "duplicate"; messageId: string }
  | { index: number; status: "error"; error: string; message: string };

export type SendResult = Exclude<AcceptResult, { status: "idempotency_key_mismatch" }>;

export interface EmailSender {
  /** One email (POST /v1/send): render → normalise → authorise → accept through the group commit. */
  send(context: SendContext, body: SendRequestBody, headerIdempotencyKey?: string): Promise<SendResult>;
  /**
   * A batch (POST /v1/send/batch), committed in one transaction of its own. `strict`: the first bad item
   * fails the whole batch (nothing is accepted); `permissive`: bad items are reported, the others accepted.
   * Results are in request order.
   */
  sendBatch(context: SendContext, items: BatchItem[], policy: BatchPolicy): Promise<BatchItemResult[]>;
  /** An item normalised by another door (SMTP): authorise → accept through the same group commit. */
  sendItem(context: SendContext, item: AcceptItem): Promise<AcceptResult>;
}

/**
 * The send use case shared by the HTTP routes and the SMTP submission server, so that both doors apply the
 * same from-domain rule, account policy (paused, categories, batch size) and quotas (counted in Postgres,
 * a batch's emails in its own transaction), limits, idempotency and group commit. The caller answers only
 * after the returned promise resolves: the email is then durable in Postgres.
 */
export function createEmailSender(deps: SendDeps): EmailSender {
  // One accept statement in flight, the next group gathering meanwhile, measured best (make bench: ~15 % more
  // sends/s than two in flight): a round trip costs about as much for one email as for fifty.
  const queue = createAcceptQueue(deps.pool, { hostname: deps.hostname, concurrency: 1, maxBatch: 200 });
  const authorize = createSenderAuthorizer(deps.pool, { allowAny: deps.allowUnverifiedFrom });
  const accepted = (result: AcceptResult) => {
    if (result.status !== "idempotency_key_mismatch") deps.onAccepted?.(result);
  };

  // After authorisation, so a refused sender puts nothing on a suppression list (suppressed@, ADR 0049).
  const request = async (context: SendContext, item: AcceptItem): Promise<AcceptRequest> => ({
    ...item,
    account: context.account,
    apiKeyId: context.apiKeyId,
    trace: context.trace,
    source: context.source,
    simulated: await prepareSimulatorSend(deps.pool, context.account, item.draft, deps.simulatorDomain),
    sandbox: context.sandbox,
  });

  /** Renders the named template (so the log shows exactly what is sent), then validates the whole request. */
  async function toRequest(context: SendContext, body: SendRequestBody, headerKey?: string) {
    const template = requestedTemplate(body);
    const rendered = template
      ? await renderTemplateForSend(deps.pool, context.account, { variables: {}, ...template })
      : undefined;
    const item = normalizeSendRequest(body, { headerIdempotencyKey: headerKey, now: context.now, rendered });
    await authorize(context.account, item.draft.fromAddress);
    return request(context, item);
  }

  /**
   * The account's policy and its quotas for one email outside a transaction (a single send, SMTP). A retry with
   * the same idempotencyKey, which the spec asks for after a 429 or 503, is answered with the first send's
   * result and is no new email: it is not counted again.
   */
  async function admitOne(context: SendContext, item: AcceptItem): Promise<void> {
    checkAccountPolicy(context.policy, { count: 1, categories: [item.draft.category], batch: false });
    const { emailsPerSecond, dailySendLimit } = context.policy;
    if (emailsPerSecond === null && dailySendLimit === null) return;
    if (item.idempotencyKey && (await isKnownIdempotencyKey(deps.pool, context.account, item.idempotencyKey)))
      return;
    await countAccountSends(deps.pool, context.policy, 1, context.now);
  }

  async function sendItem(context: SendContext, item: AcceptItem): Promise<AcceptResult> {
    await authorize(context.account, item.draft.fromAddress);
    await admitOne(context, item);
    const result = await queue.accept(await request(context, item));
    accepted(result);
    return result;
  }

  return {
    sendItem,
    async send(context, body, headerKey) {
      const item = await toRequest(context, body, headerKey);
      await admitOne(context, item);
      const result = await queue.accept(item);
      if (result.status === "idempotency_key_mismatch")
        throw new MailroomError("idempotency_key_mismatch", MISMATCH);
      accepted(result);
      return result;
    },
    async sendBatch(context, items, policy) {
      // Paused, or over the account's batch size: the whole request is refused before any item is read.
      checkAccountPolicy(context.policy, { count: items.length, categories: [], batch: true });
      const errors: BatchItemResult[] = [];
      const ready: { index: number; item: AcceptRequest }[] = [];
      for (const { index, body, error } of items) {
        try {
          if (error) throw error;
          const item = await toRequest(context, body as SendRequestBody);
          checkAccountPolicy(context.policy, { count: 1, categories: [item.draft.category], batch: false });
          ready.push({ index, item });
        } catch (caught) {
          if (!isMailroomError(caught)) throw caught;
          if (policy === "strict") throw new MailroomError(caught.code, `[${index}].${caught.message}`);
          errors.push({
            index,
            status: "error",
            error: caught.code,
            message: `[${index}].${caught.message}`,
          });
        }
      }
      const results = await withTransaction(deps.pool, async (client) => {
        // The whole batch or none of it: counted in the accept's transaction, which a refusal rolls back.
        await countAccountSends(client, context.policy, ready.length, context.now);
        const out = await acceptEmails(
          client,
          { hostname: deps.hostname },
          ready.map((r) => r.item),
        );
        const mismatch = out.findIndex((r) => r.status === "idempotency_key_mismatch");
        // Strict means all or nothing: throwing rolls back every item of the batch.
        if (policy === "strict" && mismatch >= 0) {
          throw new MailroomError(
            "idempotency_key_mismatch",
            `[${ready[mismatch]?.index}].idempotencyKey: ${MISMATCH}`,
          );
        }
        return out;
      });
      const data = [...errors];
      results.forEach((r, i) => {
        const index = ready[i]?.index as number;
        if (r.status === "idempotency_key_mismatch") {
          data.push({
            index,
            status: "error",
            error: r.status,
            message: `[${index}].idempotencyKey: ${MISMATCH}`,
          });
        } else {
          accepted(r);
          data.push({ index, status: r.status, messageId: r.messageId });
        }
      });
      return data.sort((a, b) => a.index - b.index);
    },
  };
}
