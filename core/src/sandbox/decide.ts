/**
 * The one decision "does this email leave?" (issue 30, ADR 0047): it is captured when the key that sent it
 * is a `sandbox` key or its account is a sandbox. Made once, at accept, from the key and account rows the
 * authentication statement already read, and stored on the email (`emails.sandbox`): the worker only
 * reads that flag to pick the capture transport, so a key or account changed later cannot release mail
 * accepted as a sandbox's (nor hold back mail accepted as live).
 */
export function capturesMail(key: { mode: "live" | "sandbox" }, account: { sandbox: boolean }): boolean {
  return key.mode === "sandbox" || account.sandbox;
}
