// Build: what a function bundle gets for `node:http` (and `http`): the built-in module read through `require`, with
// its named exports. esbuild puts this file in place of the built-in (functionBundling's `--alias`), because an ESM
// `import` of `node:http`, static or dynamic, makes Node build the module's namespace from every export, and reading
// `WebSocket`, `CloseEvent` and `MessageEvent` (lazy getters since Node 22.5) loads undici: 20-30 ms of every cold
// start on Node 24 for a module no function uses (the AWS SDK's HTTP handler imports `node:http` for its Agent and
// request). `require` returns the module object without reading them. Those three are not exported here: a bundle
// importing one fails to build instead of paying for it.
import { createRequire } from 'node:module';

const http = createRequire(import.meta.url)('node:http');

export default http;
export const {
  _connectionListener,
  Agent,
  ClientRequest,
  IncomingMessage,
  METHODS,
  OutgoingMessage,
  STATUS_CODES,
  Server,
  ServerResponse,
  createServer,
  get,
  globalAgent,
  maxHeaderSize,
  request,
  setMaxIdleHTTPParsers,
  validateHeaderName,
  validateHeaderValue,
} = http;
