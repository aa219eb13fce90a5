// Test support: the committed OpenAPI document, and ajv (JSON Schema 2020-12, ajv-formats, the document's `int32` and
// `int64` formats checked as integers of that size) with the document's components loaded, so any schema of the
// document (a `$ref` to `#/components/...`) compiles as it is.
import { readFileSync } from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { OpenApiDocument } from '#shared/openapi/document';

export const committedDocument = JSON.parse(readFileSync(new URL('../../shared/openapi/openapi.json', import.meta.url), 'utf8')) as OpenApiDocument;

export const documentAjv = (document: object = committedDocument) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  const int = (bits: 32 | 64) => ({
    type: 'number' as const,
    validate: (value: number) => Number.isInteger(value) && (bits === 64 ? Number.isSafeInteger(value) : value >= -(2 ** 31) && value < 2 ** 31),
  });
  ajv.addFormat('int32', int(32));
  ajv.addFormat('int64', int(64));
  // The components, under the base their `#/components/...` references resolve against.
  const base = 'urn:business-platform:openapi';
  ajv.addSchema({ $id: base, components: (document as { components: object }).components });
  /** Compiles a schema of the document, its references resolved against the components. */
  const compile = (schema: object): ValidateFunction =>
    ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${base}#/components/`)) as object);
  return { ajv, compile };
};
