/**
 * Whether a `TLS-Required` header field's value asks that receivers' TLS policies be ignored (RFC 8689 §5:
 * `TLS-Required: No`, the only value it defines; ABNF literals are case-insensitive). Any other value is
 * ignored as the RFC has no meaning for it.
 */
export const saysTlsRequiredNo = (value: string | undefined): boolean => value?.trim().toLowerCase() === "no";
