// Tooling: `npm run openapi` writes the OpenAPI document, built from the operations manifest and the zod schemas,
// to shared/openapi/openapi.json, and the request validators ajv compiles from it to shared/compiled/requests/
// (infra/build/request-validators.ts). Both are committed; a unit test fails when either is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildOpenApiDocument, openApiJsonUrl, serializeOpenApiDocument } from '#shared/openapi/document';
import { requestsFolder, writeRequestValidators } from '#infra/build/request-validators';
import { compiledFolder, writeCompiledModules } from '#infra/build/validators';

const path = fileURLToPath(openApiJsonUrl);
const document = buildOpenApiDocument();
writeFileSync(path, serializeOpenApiDocument(document));
console.log(path);
console.log(`${writeRequestValidators(JSON.parse(serializeOpenApiDocument(document)))} files in ${requestsFolder}/`);
console.log(`${await writeCompiledModules()} files in ${compiledFolder}/operations and schemas`);
