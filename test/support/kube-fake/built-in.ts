/**
 * What kube-apiserver validates for the built-in kinds Mailroom writes, and for every object's
 * ownerReferences. Sources: k8s.io/apimachinery metav1.Time/MicroTime decoding (a malformed time is a decode
 * error: 400), pkg/apis/coordination/validation (Lease), pkg/apis/core/validation (Secret, Event) and
 * apimachinery's ValidateOwnerReferences (all 422 Invalid with one cause per field).
 */
import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "./object.ts";
import { badRequest, type StatusCause } from "./status.ts";

// metav1.Time: RFC 3339, Go's parser taking any fractional seconds; metav1.MicroTime: exactly six digits.
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;
const RFC3339 = "2006-01-02T15:04:05Z07:00";
const RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00";
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const MAX_SECRET_BYTES = 1024 * 1024;

type Fields = Record<string, unknown>;
const fieldsOf = (v: unknown): Fields => (v && typeof v === "object" ? (v as Fields) : {});

/** A time field that does not decode fails the whole request with 400, before any validation. */
function decodeTime(kind: string, value: unknown, micro: boolean): void {
  if (value === undefined || value === null) return;
  const layout = micro ? RFC3339_MICRO : RFC3339;
  if (typeof value !== "string" || !(micro ? MICRO_TIME : TIME).test(value)) {
    throw badRequest(
      `${kind} in version "v1" cannot be handled as a ${kind}: parsing time ${JSON.stringify(value)} as ` +
        `"${layout}": cannot parse ${JSON.stringify(value)} as "${layout}"`,
    );
  }
}

/** ValidateOwnerReferences: apiVersion, kind, name and uid required; at most one controller. */
export function ownerReferenceCauses(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const refs = (obj.metadata.ownerReferences ?? []) as Fields[];
  const field = "metadata.ownerReferences";
  const empty = (child: string, value: unknown, what: string) =>
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${JSON.stringify(value ?? "")}: ${what} must not be empty`,
      field: `${field}.${child}`,
    });
  for (const ref of refs) {
    const apiVersion = typeof ref.apiVersion === "string" ? ref.apiVersion : "";
    if (!(apiVersion.includes("/") ? apiVersion.split("/")[1] : apiVersion)) {
      empty("apiVersion", ref.apiVersion, "version");
    }
    for (const key of ["kind", "name", "uid"]) {
      if (typeof ref[key] !== "string" || ref[key] === "") empty(key, ref[key], key);
    }
  }
  const controllers = refs.filter((r) => r.controller === true);
  if (controllers.length > 1) {
    const names = controllers.map((r) => `{${r.kind} ${r.name}}`).join(", ");
    causes.push({
      reason: "FieldValueInvalid",
      message: `Only one reference can have Controller set to true. Found "true" in references for ${names}`,
      field,
    });
  }
  return causes;
}

function leaseCauses(obj: KubeObject): StatusCause[] {
  const spec = fieldsOf(obj.spec);
  decodeTime("Lease", spec.acquireTime, true);
  decodeTime("Lease", spec.renewTime, true);
  const causes: StatusCause[] = [];
  const duration = spec.leaseDurationSeconds;
  if (duration !== undefined && duration !== null && !(Number(duration) > 0)) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${duration}: must be greater than 0`,
      field: "spec.leaseDurationSeconds",
    });
  }
  const transitions = spec.leaseTransitions;
  if (transitions !== undefined && transitions !== null && Number(transitions) < 0) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: ${transitions}: must be greater than or equal to 0`,
      field: "spec.leaseTransitions",
    });
  }
  return causes;
}

function secretCauses(obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const data = fieldsOf(obj.data);
  let size = 0;
  for (const [key, value] of Object.entries(data)) {
    size += Buffer.from(String(value), "base64").length;
    if (!CONFIG_KEY.test(key)) {
      causes.push({
        reason: "FieldValueInvalid",
        message: `Invalid value: "${key}": a valid config key must consist of alphanumeric characters, '-', '_' or '.'`,
        field: "data",
      });
    }
  }
  if (size > MAX_SECRET_BYTES) {
    causes.push({
      reason: "FieldValueTooLong",
      message: "Too long: may not be more than 1048576 bytes",
      field: "data",
    });
  }
  if (!old) return causes;
  if (obj.type !== old.type) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: "${obj.type}": field is immutable`,
      field: "type",
    });
  }
  if (old.immutable === true) {
    if (obj.immutable !== true) {
      causes.push({
        reason: "FieldValueForbidden",
        message: "Forbidden: field is immutable when `immutable` is set",
        field: "immutable",
      });
    }
    if (!isDeepStrictEqual(obj.data ?? {}, old.data ?? {})) {
      causes.push({
        reason: "FieldValueForbidden",
        message: "Forbidden: field is immutable when `immutable` is set",
        field: "data",
      });
    }
  }
  return causes;
}

function eventCauses(obj: KubeObject): StatusCause[] {
  decodeTime("Event", obj.firstTimestamp, false);
  decodeTime("Event", obj.lastTimestamp, false);
  decodeTime("Event", obj.eventTime, true);
  const causes: StatusCause[] = [];
  const involved = fieldsOf(obj.involvedObject);
  // An Event lives in the namespace of the object it is about; one about a cluster-scoped object (no
  // namespace) in "default" (or none), as kube-apiserver's ValidateEventCreate allows.
  const clusterScoped = (involved.namespace ?? "") === "";
  if (
    clusterScoped
      ? !["", "default", undefined].includes(obj.metadata.namespace)
      : involved.namespace !== obj.metadata.namespace
  ) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: "${String(involved.namespace ?? "")}": does not match event.namespace`,
      field: "involvedObject.namespace",
    });
  }
  const controller = obj.reportingComponent;
  if (typeof controller === "string" && controller !== "" && !QUALIFIED_NAME.test(controller)) {
    causes.push({
      reason: "FieldValueInvalid",
      message: `Invalid value: "${controller}": name part must consist of alphanumeric characters, '-', '_' or '.'`,
      field: "reportingController",
    });
  }
  return causes;
}

/** Field errors of a built-in object (throws 400 for a body that would not decode). */
export function builtInCauses(kind: string, obj: KubeObject, old: KubeObject | undefined): StatusCause[] {
  switch (kind) {
    case "Lease":
      return leaseCauses(obj);
    case "Secret":
      return secretCauses(obj, old);
    case "Event":
      return eventCauses(obj);
    default:
      return [];
  }
}
