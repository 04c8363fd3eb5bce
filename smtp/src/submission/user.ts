/** Who a session authenticated as: the key is kept to re-check it (revocation, rate limit) per message. */
export interface SubmissionUser {
  key: string;
  keyId: string;
  account: string;
}
