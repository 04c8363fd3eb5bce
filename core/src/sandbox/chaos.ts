import { MailroomError } from "../errors/index.ts";

/**
 * Chaos rules of a sandbox inbox (issue 30 item 4, ADR 0048) and the pure decision of what one captured SMTP
 * transaction meets. The capture transport applies it where a server's reply would come: a refused RCPT
 * fails that recipient, a refused DATA or a dropped connection the whole transaction, a slow server delays
 * its 250. 4xx and drops are temporary (the retry plan), 5xx permanent (a bounce and a suppression).
 */
export interface ChaosRule {
  /** One envelope recipient (any case), `@domain` for a domain's, or absent for every recipient. */
  recipient?: string | undefined;
  /** The share of attempts the rule fails, drawn per attempt; 1 when absent. */
  share?: number | undefined;
  at: "rcpt" | "data";
  action: "reply" | "drop" | "slow";
  /** The SMTP code of a `reply` (4xx temporary, 5xx permanent). */
  code?: number | undefined;
  /** How long a `slow` server takes before its 250. */
  delaySeconds?: number | undefined;
}

export interface ChaosOutcome {
  /** Recipients refused at RCPT, each with its code. */
  refused: Map<string, number>;
  /** The whole transaction's failure at DATA (or a dropped connection); undefined when it goes through. */
  failed?: { code?: number; response: string } | undefined;
  delaySeconds: number;
}

function matches(rule: ChaosRule, recipient: string): boolean {
  if (!rule.recipient) return true;
  const want = rule.recipient.toLowerCase();
  const got = recipient.toLowerCase();
  return want.startsWith("@") ? got.endsWith(want) : got === want;
}

/** What a transaction to `recipients` meets under `rules`; `random` draws each rule's share (0 ≤ r < 1). */
export function decideChaos(
  rules: readonly ChaosRule[],
  recipients: readonly string[],
  random: () => number,
): ChaosOutcome {
  const outcome: ChaosOutcome = { refused: new Map(), delaySeconds: 0 };
  for (const [n, rule] of rules.entries()) {
    const hit = recipients.filter((r) => matches(rule, r));
    if (hit.length === 0 || random() >= (rule.share ?? 1)) continue;
    if (rule.action === "slow") {
      outcome.delaySeconds = Math.max(outcome.delaySeconds, rule.delaySeconds ?? 0);
    } else if (rule.action === "drop") {
      outcome.failed ??= { response: `chaos rule ${n + 1}: connection dropped at ${rule.at.toUpperCase()}` };
    } else if (rule.at === "data") {
      outcome.failed ??= {
        code: rule.code,
        response: `${rule.code} chaos rule ${n + 1}: DATA refused`,
      };
    } else {
      for (const r of hit) if (!outcome.refused.has(r)) outcome.refused.set(r, rule.code ?? 450);
    }
  }
  return outcome;
}

/**
 * Checks what the schema cannot say per field: a `reply` names its code, a `slow` its delay, and nothing
 * else carries either. Throws `validation_error` naming the rule.
 */
export function checkChaosRules(rules: readonly ChaosRule[]): ChaosRule[] {
  return rules.map((rule, n) => {
    const where = `rules[${n}]`;
    if ((rule.action === "reply") !== (rule.code !== undefined))
      throw new MailroomError(
        "validation_error",
        `${where}.code: required with action "reply" and only then`,
      );
    if ((rule.action === "slow") !== (rule.delaySeconds !== undefined))
      throw new MailroomError(
        "validation_error",
        `${where}.delaySeconds: required with action "slow" and only then`,
      );
    return rule;
  });
}
