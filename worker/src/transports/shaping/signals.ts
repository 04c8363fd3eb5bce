/**
 * Whether a receiver's reply asks us to slow down, as opposed to refusing this message or recipient:
 * - 421 (RFC 5321 §3.8: the service is closing the channel; receivers send it when a sender comes too fast
 *   or too often, e.g. Yahoo's `421 4.7.0 [TSS04]`, Microsoft's `421 4.7.66`);
 * - a 4xx with enhanced status 4.7.x (RFC 3463's security or policy class: Gmail's `451 4.7.28` for an
 *   unusual rate, Microsoft's `451 4.7.500 Server busy`);
 * - a 4xx whose text says so ("try again later", "rate limit", "too many", "throttled").
 * Greylisting (a 4.7.1 or "try again later" naming it) is left out: it is about one sender and recipient,
 * passes on the next try of that message, and says nothing about the rate the destination will take.
 */
export function isRateLimitReply(code: number | undefined, response: string): boolean {
  if (code === undefined || code < 400 || code >= 500) return false;
  if (/gr[ae]y-?list/i.test(response)) return false;
  if (code === 421) return true;
  if (/(^|[\s-])4\.7\.\d{1,3}\b/.test(response)) return true;
  return /try again later|rate.?limit|too many|throttl|slow down|unusual rate/i.test(response);
}
