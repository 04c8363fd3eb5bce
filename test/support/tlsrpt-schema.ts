import { readFileSync } from "node:fs";
import path from "node:path";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";

// ajv-formats is CommonJS with a `default` export; under NodeNext the default import is the module object.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

const schema = JSON.parse(
  readFileSync(
    path.resolve(import.meta.dirname, "../../core/src/tls-reports/rfc8460-report.schema.json"),
    "utf8",
  ),
) as object;

const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
addFormats(ajv);
const validate = ajv.compile(schema);

/** The errors of a report against RFC 8460 §4.4's schema (`rfc8460-report.schema.json`); empty when valid. */
export function tlsReportErrors(report: unknown): string[] {
  return validate(report) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
