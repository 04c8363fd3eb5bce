/** Whether a statement failed on a unique index or constraint (SQLSTATE 23505), e.g. a name already taken. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "23505";
}
