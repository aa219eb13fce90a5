// Tooling: `npm run openapi` writes the OpenAPI document, built from the operations manifest and the zod schemas,
// to shared/openapi/openapi.json, and the request collection built from its examples to docs/business-platform.http.
// Both files are committed; a unit test fails when either is stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, openApiJsonUrl, serializeOpenApiDocument } from '#shared/openapi/document';
import { buildRequestCollection, requestCollectionUrl } from '#shared/openapi/request-collection';

const document = buildOpenApiDocument();
for (const [url, text] of [
  [openApiJsonUrl, serializeOpenApiDocument(document)],
  [requestCollectionUrl, buildRequestCollection(document)],
] as const) {
  const path = fileURLToPath(url);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(path);
}
