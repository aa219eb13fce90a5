// Tooling: `npm run openapi` writes the OpenAPI document, built from the operations manifest and the zod schemas,
// to shared/openapi/openapi.json. The file is committed; a unit test fails when it is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, openApiJsonUrl, serializeOpenApiDocument } from '#shared/openapi/document';

const path = fileURLToPath(openApiJsonUrl);
writeFileSync(path, serializeOpenApiDocument(buildOpenApiDocument()));
console.log(path);
