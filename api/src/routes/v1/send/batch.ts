import { MailroomError } from "@mailroom/core/errors";
import type { BatchItem } from "@mailroom/core/sending";
import { Ajv, type ValidateFunction } from "ajv";
import { describeSchemaError } from "../../../plugins/errors.ts";
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
