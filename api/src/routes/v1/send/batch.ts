import { MailroomError } from "@mailroom/core/errors";
import type { BatchItem } from "@mailroom/core/sending";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { sendEmailSchema } from "./schema.ts";

// Same options as the API's own validator: unknown fields are errors, nothing is coerced. Compiled on the
// first batch: a process that never sees one does not pay for a second compiled copy of the send schema.
let itemValidator: ValidateFunction | undefined;
function validateItem(): ValidateFunction {
  itemValidator ??= new Ajv({
    removeAdditional: false,
    coerceTypes: false,
    useDefaults: true,
    allErrors: false,
  }).compile(sendEmailSchema);
  return itemValidator;
}

/** `to.0` style path of a schema error, naming the field like the single-send route does. */
export function describeSchemaError(error: ErrorObject | undefined): string {
  if (!error) return "body: is invalid";
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const path = error.instancePath
    .split("/")
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join("");
  const leaf = params.missingProperty ?? params.additionalProperty;
  const field = leaf ? (path ? `${path}.${leaf}` : leaf) : path || "body";
  const message = params.missingProperty
    ? "is required"
    : params.additionalProperty
      ? "is not a known field"
      : (error.message ?? "is invalid");
  return `${field}: ${message}`;
}

/** Validates each batch item against the single-send schema, keeping the request order. */
export function* validateBatch(items: unknown[]): Generator<BatchItem> {
  const validate = validateItem();
  for (const [index, body] of items.entries()) {
    if (validate(body)) yield { index, body };
    else
      yield {
        index,
        body,
        error: new MailroomError("validation_error", describeSchemaError(validate.errors?.[0])),
      };
  }
}
