export const STATUS = /^([245])\.(\d{1,3})\.(\d{1,3})$/;

/** How a recipient's line in a bounce weighs: a permanent failure, a temporary one, or news of no failure. */
export type BounceClass = "hard" | "soft" | "none";

export interface RecipientBounce {
  /** Lower-cased address the report is about (Final-Recipient, or the address a plain-text bounce names). */
  recipient: string;
  /** RFC 3464 Action (`failed`, `delayed`, `delivered`, `relayed`, `expanded`); inferred for plain text. */
  action: string;
  /** RFC 3463 enhanced status code, e.g. `5.1.1`, when the report gave one. */
  status: string | undefined;
  /** The remote server's words (Diagnostic-Code without its type), the best explanation for a person. */
  diagnostic: string | undefined;
  remoteMta: string | undefined;
  class: BounceClass;
}

/** Classifies one recipient by its status code, falling back on its action (RFC 3464 §2.3.3). */
export function classify(action: string, status: string | undefined): BounceClass {
  const act = action.toLowerCase();
  if (act === "delivered" || act === "relayed" || act === "expanded") return "none";
  const match = status ? STATUS.exec(status) : null;
  if (match?.[1] === "5") return "hard";
  if (match?.[1] === "4") return "soft";
  if (match?.[1] === "2") return "none";
  if (act === "failed") return "hard";
  if (act === "delayed") return "soft";
  return "none";
}
