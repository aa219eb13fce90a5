// Tooling: `npm run openapi` writes the OpenAPI document, built from the operations manifest and the zod schemas,
// to shared/openapi/openapi.json, the request collection built from its examples to docs/business-platform.http, and
// shared/compiled/: the request validators ajv compiles from the document (requests/, infra/build/request-validators.ts),
// the manifest's run-time entries with their parameters' types and bodies' shapes from the same document (operations/,
// infra/build/compiled-operations.ts), and the validators of the principal and the queue messages (schemas/,
// infra/build/schema-validators.ts). All are committed; a unit test fails when any is stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseCommandLine } from '#infra/local/command-line';
import { buildOpenApiDocument, openApiJsonUrl, serializeOpenApiDocument } from '#shared/openapi/document';
import { buildRequestCollection, requestCollectionUrl } from '#shared/openapi/request-collection';
import { requestsFolder, writeRequestValidators } from '#infra/build/request-validators';
import { operationsFolder, writeCompiledOperations } from '#infra/build/compiled-operations';
import { schemasFolder, writeSchemaValidators } from '#infra/build/schema-validators';

const usage = `Usage: npm run openapi

  Regenerates shared/openapi/openapi.json, docs/business-platform.http and shared/compiled/ from the schemas and the
  operations manifest, and prints each path it wrote. Takes no arguments.

  -h, --help  Show this help
`;
parseCommandLine(usage, () => parseArgs({ options: { help: { type: 'boolean', short: 'h' } }, strict: true }));

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
console.log(`${await writeCompiledOperations(JSON.parse(serialized))} files in ${operationsFolder}/`);
console.log(`${await writeSchemaValidators()} files in ${schemasFolder}/`);
