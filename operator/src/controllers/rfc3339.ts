/** RFC 3339 at second precision, as Kubernetes writes metav1.Time (conditions, status timestamps). */
export function toRfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}
