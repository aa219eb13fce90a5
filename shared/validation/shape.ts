// Validation: what the codecs and the tenancy rule need to know of a request's schema, as plain data generated from
// the OpenAPI document's request schemas by `npm run openapi` (infra/build/request-shapes.ts), beside the validators
// ajv compiles from the same schemas. XML and form values arrive as text: coercion reads which members are numbers,
// booleans, lists and records (shared/http/codecs/coerce.ts); the tenancy rule reads which values are records and
// which members they declare (shared/http/tenancy.ts). Nodes refer to each other by index into one table, so shared
// and recursive schemas (Address, inventory class groups) are written once.

/** One schema, past `$ref`s, `allOf` wrappers and the `null` branch of a nullable value. */
export type ShapeNode =
  /** A JSON Schema `number` or `integer` (or a constant of that type). */
  | 'number'
  /** A `boolean` (or a constant of that type: a flag that must stay unset). */
  | 'boolean'
  /** Anything else: text, or a value coercion leaves as it is. */
  | 'other'
  | { readonly array: number }
  | {
      /** The members the object declares, each with its node. */
      readonly object: Readonly<Record<string, number>>;
      /** Its required members whose own schema is a list: XML and forms cannot write an empty one, so absent is empty. */
      readonly lists?: readonly string[];
    }
  /** Branches (`anyOf`/`oneOf`) that are not a nullable value: the value is one of these. */
  | { readonly union: readonly number[] };

/** A request body's schema as shapes: the node table and the root's index. */
export interface RequestShape {
  readonly nodes: readonly ShapeNode[];
  readonly root: number;
}

/** Each declared path or query parameter with the JSON type its schema states (OpenAPI's simple style reads the text as it). */
export type ParameterTypes = Readonly<Record<string, 'integer' | 'number' | 'boolean' | 'string'>>;
