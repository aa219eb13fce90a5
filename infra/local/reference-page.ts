// Local stack: the API reference, served by the local gateway outside the operations manifest (no token needed).
//   GET /api/openapi.json  the OpenAPI document, whose first server is the address it was fetched from;
//   GET /api/docs          an interactive reference (Swagger UI, `swagger-ui-dist`) rendering that document, where a
//                          user pastes a bearer token (Authorize) and tries any operation (Execute); the page has
//                          its webhook requests signed by the stack (webhook-signing.ts), so they answer 202.
// Every asset of the page comes from node_modules through this module: no CDN, no request leaves the page's origin
// (its Content-Security-Policy allows only 'self', and the renderer's online validator is off).
import { readFile } from 'node:fs/promises';
import { isIPv6 } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiBasePath, resourceOf } from '#shared/operations/index';
import type { ModuleResolver } from './lambda-runtime';
import { signedWebhookPath, webhookSigningPath } from './webhook-signing';

export const openApiModulePath = 'shared/openapi/document.ts';
/** The reference page, under the stage: `/api/docs`. */
export const referencePagePath = '/docs';

/**
 * The page's policy: scripts, styles and images from its own origin only (Swagger UI draws its icons as data: URIs,
 * and sets element styles through the DOM, which needs no 'unsafe-inline'), calls to its own origin only (the
 * document and the operations tried). The browser test fails on any violation.
 */
export const referencePageContentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const hostLabel = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const hostPattern = new RegExp(`^(?:\\[([0-9A-Fa-f:.]+)\\]|${hostLabel}(?:\\.${hostLabel})*)(?::([0-9]{1,5}))?$`);

/**
 * The `host[:port]` of a Host header when it is syntactically one (a DNS name or IPv4 address, or a bracketed IPv6
 * address, and a port from 1 to 65535), else undefined. The header is the client's: nothing else is accepted.
 */
export const validHost = (header: string | undefined): string | undefined => {
  if (header === undefined || header.length === 0 || header.length > 261) return undefined;
  const match = hostPattern.exec(header);
  if (!match) return undefined;
  const [, ipv6, port] = match;
  if (ipv6 !== undefined && !isIPv6(ipv6)) return undefined;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65_535)) return undefined;
  return header.toLowerCase();
};

/** The address a request reached: its Host when valid, else the socket it was accepted on. */
export const serverUrlOf = (host: string | undefined, local: { readonly address?: string; readonly port?: number }): string => {
  const valid = validHost(host);
  if (valid !== undefined) return `http://${valid}${apiBasePath}`;
  const address = (local.address ?? '127.0.0.1').replace(/^::ffff:/, '');
  return `http://${isIPv6(address) ? `[${address}]` : address}:${local.port ?? 0}${apiBasePath}`;
};

const swaggerUiDirectory = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Swagger UI's configuration: no online validator, no URL taken from the query, no token kept across reloads. */
const swaggerUiConfig = {
  url: `${apiBasePath}/openapi.json`,
  dom_id: '#swagger-ui',
  layout: 'BaseLayout',
  deepLinking: true,
  displayOperationId: true,
  displayRequestDuration: true,
  tryItOutEnabled: true,
  persistAuthorization: false,
  withCredentials: false,
  queryConfigEnabled: false,
  validatorUrl: null,
};
/**
 * The page's request interceptor: a POST to this stack's webhook is first sent to the stack's signer
 * (webhook-signing.ts), and the body it answers, the same event signed now, is what the page sends. The secret stays in
 * the stack. Any other request, a request to another server, or a refusal of the signer (the stack has a secret of
 * its own), leaves the request as it is (the webhook then answers 401, as it does from any client with no signature).
 */
const signWebhookRequests = `async (request) => {
  const url = new URL(request.url, window.location.href);
  if (String(request.method).toUpperCase() !== 'POST' || url.origin !== window.location.origin) return request;
  if (url.pathname.replace(/\\/+$/, '') !== ${JSON.stringify(signedWebhookPath)} || typeof request.body !== 'string') return request;
  const answer = await fetch(${JSON.stringify(`${apiBasePath}${webhookSigningPath}`)}, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ path: url.pathname, body: request.body }),
  });
  if (!answer.ok) {
    console.warn('The webhook request is sent unsigned: the stack does not sign it (' + answer.status + ').');
    return request;
  }
  request.body = (await answer.json()).body;
  return request;
}`;

/** The page's own script (the policy allows no inline script): starts Swagger UI with that configuration. */
const initializer = `window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(swaggerUiConfig)}, {
  presets: [SwaggerUIBundle.presets.apis],
  requestInterceptor: ${signWebhookRequests},
}));
`;

const assetPath = (name: string) => `${apiBasePath}${referencePagePath}/${name}`;

const page = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Business Platform API reference</title>
<link rel="stylesheet" href="${assetPath('swagger-ui.css')}">
<link rel="icon" type="image/png" href="${assetPath('favicon-32x32.png')}">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${assetPath('swagger-ui-bundle.js')}"></script>
<script src="${assetPath('reference.js')}"></script>
</body>
</html>
`;

interface Asset {
  readonly type: string;
  readonly load: () => Promise<Buffer>;
}

const fromSwaggerUi = (name: string, type: string): [string, Asset] => [name, { type, load: () => readFile(join(swaggerUiDirectory, name)) }];
const inline = (text: string, type: string): Asset => ({ type, load: () => Promise.resolve(Buffer.from(text)) });

/** Everything the page loads, by its path under the stage. A Map: a path the client sends is never a property name. */
const assets: ReadonlyMap<string, Asset> = new Map([
  [referencePagePath, inline(page, 'text/html; charset=utf-8')],
  ...[
    fromSwaggerUi('swagger-ui.css', 'text/css; charset=utf-8'),
    fromSwaggerUi('swagger-ui-bundle.js', 'text/javascript; charset=utf-8'),
    fromSwaggerUi('favicon-32x32.png', 'image/png'),
    ['reference.js', inline(initializer, 'text/javascript; charset=utf-8')] as [string, Asset],
  ].map(([name, asset]): [string, Asset] => [`${referencePagePath}/${name}`, asset]),
]);

/** How many documents (one per server URL) are kept built; Host is the client's, so the cache is bounded. */
const maxCachedDocuments = 8;

export interface ApiReferenceOptions {
  readonly resolveModule: ModuleResolver;
  /** The headers of a response the gateway makes itself (security headers, request id). */
  readonly headers: (requestId: string) => Record<string, string>;
}

/**
 * Serves the reference's routes. Returns false, having answered nothing, for a request that is not one of them.
 * `path` is the request path under the stage (`/openapi.json`, `/docs`, ...), still encoded.
 */
export const createApiReference = (options: ApiReferenceOptions) => {
  const documents = new Map<string, Promise<string>>();
  const loaded = new Map<string, Promise<Buffer>>();

  const documentFor = (serverUrl: string): Promise<string> => {
    let document = documents.get(serverUrl);
    if (!document) {
      document = options.resolveModule(openApiModulePath).then((module) => {
        const build = (module as { buildOpenApiDocument?: (options: object) => object }).buildOpenApiDocument;
        if (typeof build !== 'function') throw new Error(`${openApiModulePath} does not export buildOpenApiDocument`);
        return JSON.stringify(build({ serverUrl, localServer: true }));
      });
      documents.set(serverUrl, document);
      if (documents.size > maxCachedDocuments) documents.delete(documents.keys().next().value as string);
      document.catch(() => documents.delete(serverUrl));
    }
    return document;
  };

  const send = async (response: ServerResponse, requestId: string, type: string, body: () => Promise<Buffer | string>, csp?: string) => {
    const content = await body();
    const headers = options.headers(requestId);
    response.writeHead(200, {
      ...headers,
      'Content-Type': type,
      'Content-Length': String(Buffer.byteLength(content)),
      ...(csp ? { 'Content-Security-Policy': csp } : {}),
    });
    response.end(content);
  };

  return async (request: IncomingMessage, response: ServerResponse, path: string, requestId: string): Promise<boolean> => {
    const resource = resourceOf(path);
    if (resource === '/openapi.json') {
      const serverUrl = serverUrlOf(request.headers.host, { address: request.socket.localAddress, port: request.socket.localPort });
      await send(response, requestId, 'application/json', () => documentFor(serverUrl));
      return true;
    }
    const asset = assets.get(resource);
    if (!asset) return false;
    await send(response, requestId, asset.type, () => {
      let content = loaded.get(resource);
      if (!content) {
        content = asset.load();
        loaded.set(resource, content);
        content.catch(() => loaded.delete(resource));
      }
      return content;
    }, referencePageContentSecurityPolicy);
    return true;
  };
};
