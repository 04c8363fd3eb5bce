/**
 * metav1.Status failures shaped like kube-apiserver's (k8s.io/apimachinery/pkg/api/errors), so client code
 * that branches on `code`/`reason` or shows `message` behaves here as it will against a real cluster.
 */

/** One entry of `details.causes`. */
export interface StatusCause {
  reason: string;
  message: string;
  field?: string;
}

/** A metav1.Status with status Failure. */
export interface KubeStatus {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, never>;
  status: "Failure";
  message: string;
  reason: string;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
  code: number;
}

/** Thrown inside the fake; the router turns it into the HTTP response. */
export class StatusError extends Error {
  readonly status: KubeStatus;
  constructor(status: KubeStatus) {
    super(status.message);
    this.status = status;
  }
}

/** The resource a failure is about: `group` is "" for the core group, `resource` the plural. */
export interface Subject {
  group: string;
  resource: string;
  name: string;
}

function failure(
  code: number,
  reason: string,
  message: string,
  details?: KubeStatus["details"],
): StatusError {
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  });
}

/** `apikeys.mailroom.dev` or `secrets`, as the API server names a resource in messages. */
export function qualifiedResource(s: Pick<Subject, "group" | "resource">): string {
  return s.group ? `${s.resource}.${s.group}` : s.resource;
}

function subjectDetails(s: Subject): NonNullable<KubeStatus["details"]> {
  return { name: s.name, ...(s.group ? { group: s.group } : {}), kind: s.resource };
}

/** 404 NotFound. */
export function notFound(s: Subject): StatusError {
  return failure(404, "NotFound", `${qualifiedResource(s)} "${s.name}" not found`, subjectDetails(s));
}

/** 409 AlreadyExists (create of an existing name). */
export function alreadyExists(s: Subject): StatusError {
  return failure(
    409,
    "AlreadyExists",
    `${qualifiedResource(s)} "${s.name}" already exists`,
    subjectDetails(s),
  );
}

/** 409 Conflict (stale resourceVersion or failed precondition). */
export function conflict(s: Subject, why: string): StatusError {
  return failure(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualifiedResource(s)} "${s.name}": ${why}`,
    subjectDetails(s),
  );
}

/** The message kube-apiserver gives for a stale resourceVersion. */
export const STALE_OBJECT =
  "the object has been modified; please apply your changes to the latest version and try again";

/** 422 Invalid, with one cause per field error: `<Kind>.<group> "<name>" is invalid: ...`. */
export function invalid(kind: string, group: string, name: string, causes: StatusCause[]): StatusError {
  const parts = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const list = parts.length === 1 ? parts[0] : `[${parts.join(", ")}]`;
  const qualifiedKind = group ? `${kind}.${group}` : kind;
  return failure(422, "Invalid", `${qualifiedKind} "${name}" is invalid: ${list}`, {
    name,
    ...(group ? { group } : {}),
    kind,
    causes,
  });
}

/** 410 Expired: a watch or exact list from a compacted resourceVersion. */
export function expired(requested: number, oldest: number): StatusError {
  return failure(410, "Expired", `too old resource version: ${requested} (${oldest})`);
}

/** 400 BadRequest. */
export function badRequest(message: string): StatusError {
  return failure(400, "BadRequest", message);
}

/** 405 MethodNotAllowed. */
export function methodNotAllowed(message: string): StatusError {
  return failure(405, "MethodNotAllowed", message);
}

/** 415 UnsupportedMediaType. */
export function unsupportedMediaType(message: string): StatusError {
  return failure(415, "UnsupportedMediaType", message);
}

/** 404 for a path that names no resource the fake serves. */
export function pathNotFound(path: string): StatusError {
  return failure(404, "NotFound", `the server could not find the requested resource (${path})`);
}

/** 500 InternalError: a bug in the fake, or a request it deliberately does not model. */
export function internalError(message: string): StatusError {
  return failure(500, "InternalError", message);
}
