// Tooling: `npm run openapi` writes the OpenAPI document, built from the operations manifest and the zod schemas,
// to shared/openapi/openapi.json, the request collection built from its examples to docs/business-platform.http, and
// the request validators ajv compiles from the document to shared/compiled/requests/ (infra/build/request-validators.ts).
// All are committed; a unit test fails when any is stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, openApiJsonUrl, serializeOpenApiDocument } from '#shared/openapi/document';
import { buildRequestCollection, requestCollectionUrl } from '#shared/openapi/request-collection';
import { requestsFolder, writeRequestValidators } from '#infra/build/request-validators';
import { compiledFolder, writeCompiledModules } from '#infra/build/validators';
import { schemasFolder, writeSchemaValidators } from '#infra/build/schema-validators';

const document = buildOpenApiDocument();
const serialized = serializeOpenApiDocument(document);
for (const [url, text] of [
  [openApiJsonUrl, serialized],
  [requestCollectionUrl, buildRequestCollection(document)],
] as const) {
  const path = fileURLToPath(url);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(path);
}
console.log(`${writeRequestValidators(JSON.parse(serialized))} files in ${requestsFolder}/`);
console.log(`${await writeCompiledModules()} files in ${compiledFolder}/operations`);
console.log(`${await writeSchemaValidators()} files in ${schemasFolder}/`);
