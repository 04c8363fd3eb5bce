/**
 * The subset of the Kubernetes structural OpenAPI v3 schema (JSONSchemaProps) our CRDs use, and a type-level
 * mapping from a schema literal to the TypeScript shape it admits. Keeping both here is what makes the schema
 * the one source: the YAML is generated from it and the controllers' types are inferred from it.
 */

/** One node of a structural schema, as accepted by apiextensions.k8s.io/v1. */
export interface SchemaProps {
  readonly type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  readonly description?: string;
  readonly properties?: Readonly<Record<string, SchemaProps>>;
  readonly required?: readonly string[];
  readonly items?: SchemaProps;
  /** A map's values (labels, say); never beside `properties` in a structural schema. */
  readonly additionalProperties?: SchemaProps;
  readonly enum?: readonly (string | number | boolean)[];
  readonly default?: unknown;
  readonly pattern?: string;
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly nullable?: boolean;
  /** Value validation only (structural schemas forbid types or properties here), e.g. "one of html/text". */
  readonly anyOf?: readonly SchemaProps[];
  readonly "x-kubernetes-preserve-unknown-fields"?: boolean;
  readonly "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  readonly "x-kubernetes-list-map-keys"?: readonly string[];
  readonly "x-kubernetes-validations"?: readonly ValidationRule[];
}

/** A CEL rule (`x-kubernetes-validations` entry). */
export interface ValidationRule {
  readonly rule: string;
  readonly message: string;
  readonly reason?:
    | "FieldValueInvalid"
    | "FieldValueForbidden"
    | "FieldValueRequired"
    | "FieldValueDuplicate";
  readonly fieldPath?: string;
}

/** An `additionalPrinterColumns` entry. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: "string" | "integer" | "number" | "boolean" | "date";
  readonly jsonPath: string;
  readonly description?: string;
  readonly priority?: number;
}

/**
 * "read": the object as the API server returns it (defaulted fields are always present).
 * "write": what a client may send (defaulted fields may be omitted).
 */
export type SchemaMode = "read" | "write";

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type Listed<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

type RequiredKeys<S extends SchemaProps, M extends SchemaMode> = {
  [K in keyof S["properties"] & string]: K extends Listed<S>
    ? K
    : M extends "read"
      ? NonNullable<S["properties"]>[K] extends { readonly default: unknown }
        ? K
        : never
      : never;
}[keyof S["properties"] & string];

type ObjectOf<S extends SchemaProps, M extends SchemaMode> = S extends {
  readonly properties: Readonly<Record<string, SchemaProps>>;
}
  ? Simplify<
      { -readonly [K in RequiredKeys<S, M>]: FromSchema<S["properties"][K], M> } & {
        -readonly [K in Exclude<keyof S["properties"] & string, RequiredKeys<S, M>>]?: FromSchema<
          S["properties"][K],
          M
        >;
      }
    >
  : Record<string, unknown>;

/** The TypeScript type of values a schema literal (declared `as const`) admits. */
export type FromSchema<S, M extends SchemaMode = "read"> = S extends SchemaProps
  ? S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly type: "string" }
      ? string
      : S extends { readonly type: "integer" | "number" }
        ? number
        : S extends { readonly type: "boolean" }
          ? boolean
          : S extends { readonly type: "array"; readonly items: infer I }
            ? FromSchema<I, M>[]
            : S extends { readonly type: "object"; readonly additionalProperties: infer V }
              ? Record<string, FromSchema<V, M>>
              : S extends { readonly type: "object" }
                ? ObjectOf<S, M>
                : unknown
  : never;
