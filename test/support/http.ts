// Test support: calling the API over HTTP from integration and end-to-end tests. The base URL is the local stack
// started by global-setup.ts (E2E_BASE_URL); tokens are signed like `npm run token`.
import { connect } from 'node:net';
import type { Principal } from '#shared/auth/principal';
import { localDevSecret, signDevToken } from '#shared/auth/tokens';

export interface TokenClaims {
  readonly tenant: number;
  readonly website?: number;
  readonly user?: number;
  readonly organisation?: string;
  /** jose time span or seconds; default 12h. */
  readonly expiresIn?: string | number;
}

/** A bearer token the local authorizer accepts, for the given tenancy (website and user default to 1). */
export const tokenFor = ({ tenant, website = 1, user = 1, organisation, expiresIn }: TokenClaims): Promise<string> => {
  const principal: Principal = {
    tenantId: tenant,
    websiteId: website,
    userId: user,
    ...(organisation === undefined ? {} : { organisationId: organisation }),
  };
  return signDevToken(principal, {
    secret: process.env.AUTH_HS256_SECRET ?? localDevSecret,
    ...(expiresIn === undefined ? {} : { expiresIn }),
  });
};

/** The API's base URL, ending in `/api` (no trailing slash). */
export const apiBaseUrl = (): string => {
  const url = process.env.E2E_BASE_URL;
  if (!url) throw new Error('E2E_BASE_URL is not set: run the tests through jest so test/support/global-setup.ts starts the local stack');
  return url.replace(/\/+$/, '');
};

export interface ApiRequest {
  readonly method?: string;
  /** A bearer token (from tokenFor), sent as `Authorization: Bearer <token>`. */
  readonly token?: string;
  /** A string or Buffer is sent as is; anything else as JSON (with Content-Type application/json unless given). */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Appended as a query string; arrays repeat the name. */
  readonly query?: Readonly<Record<string, string | number | boolean | readonly (string | number | boolean)[]>>;
  /** Aborts the request (fetch then throws): a client's own timeout, as the chaos tier's retrying client sets. */
  readonly signal?: AbortSignal;
}

export interface ApiResponse<TBody = unknown> {
  readonly status: number;
  readonly headers: Headers;
  /** The body as text, always. */
  readonly text: string;
  /** The body parsed as JSON when the Content-Type says JSON (including problem+json), else undefined. */
  readonly json: TBody;
}

/**
 * Calls `<E2E_BASE_URL><path>`: `await api('/TenantLocation/GetAll', { token })`. Never throws on an HTTP
 * status; assert on `status`, `json` and `headers`.
 */
export const api = async <TBody = unknown>(path: string, request: ApiRequest = {}): Promise<ApiResponse<TBody>> => {
  const url = new URL(`${apiBaseUrl()}${path.startsWith('/') ? path : `/${path}`}`);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  }
  const headers = new Headers(request.headers);
  if (request.token) headers.set('Authorization', `Bearer ${request.token}`);
  let body: string | Uint8Array | undefined;
  if (typeof request.body === 'string' || request.body instanceof Uint8Array) {
    body = request.body;
  } else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
  }
  const response = await fetch(url, {
    method: request.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    ...(request.signal ? { signal: request.signal } : {}),
  });
  const text = await response.text();
  const isJson = /[/+]json\b/i.test(response.headers.get('Content-Type') ?? '');
  return { status: response.status, headers: response.headers, text, json: (isJson && text ? JSON.parse(text) : undefined) as TBody };
};

export interface RawApiRequest {
  readonly method?: string;
  /** Header lines exactly as sent, in order: names keep their case, and a name may repeat (which fetch cannot do). */
  readonly lines: readonly (readonly [string, string])[];
  /** Sent as is; `Content-Length` is added unless a line names it (in any case). */
  readonly body?: string;
}

/**
 * Calls `<E2E_BASE_URL><path>` over a raw HTTP/1.1 socket with the header lines given (plus `Host` unless a line
 * names it, and `Connection: close`), for requests fetch refuses to send: a header on two lines, or in two case forms.
 * Answers like `api`.
 */
export const apiLines = <TBody = unknown>(path: string, request: RawApiRequest): Promise<ApiResponse<TBody>> => {
  const url = new URL(`${apiBaseUrl()}${path.startsWith('/') ? path : `/${path}`}`);
  const body = request.body ?? '';
  const named = (name: string) => request.lines.some(([line]) => line.toLowerCase() === name);
  const lines = [
    ...(named('host') ? [] : [['Host', url.host] as const]),
    ...request.lines,
    ...(named('content-length') ? [] : [['Content-Length', String(Buffer.byteLength(body))] as const]),
    ['Connection', 'close'] as const,
  ];
  const head = `${request.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  // Written, not ended: node:http aborts a request whose client half-closes before the answer. `Connection: close`
  // makes the server close the socket after answering.
  return rawExchange(head + body).then(({ responses: [response] }) => {
    if (!response) throw new Error(`no response to ${request.method ?? 'GET'} ${url.pathname}`);
    return response as ApiResponse<TBody>;
  });
};

export interface RawExchange {
  /** Every response the server wrote, in order. */
  readonly responses: readonly ApiResponse[];
  /** Bytes after the last whole response (a response cut short), as text. */
  readonly rest: string;
  /** True when the server closed the connection; false when the wait ended first (the test's socket is then closed). */
  readonly closedByServer: boolean;
}

/** Reads consecutive HTTP/1.1 responses (Content-Length or chunked bodies) from the bytes a server wrote. */
const parseResponses = (raw: Buffer): { responses: ApiResponse[]; rest: string } => {
  const responses: ApiResponse[] = [];
  let offset = 0;
  for (;;) {
    const split = raw.indexOf('\r\n\r\n', offset);
    if (split === -1) break;
    const [statusLine = '', ...headerLines] = raw.subarray(offset, split).toString('latin1').split('\r\n');
    const headers = new Headers();
    for (const line of headerLines) headers.append(line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim());
    let body: Buffer;
    let next: number;
    if (/chunked/i.test(headers.get('Transfer-Encoding') ?? '')) {
      const chunks: Buffer[] = [];
      let at = split + 4;
      for (;;) {
        const lineEnd = raw.indexOf('\r\n', at);
        if (lineEnd === -1) return { responses, rest: raw.subarray(offset).toString('utf8') };
        const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
        if (size === 0) {
          next = lineEnd + 4;
          break;
        }
        chunks.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
      body = Buffer.concat(chunks);
    } else {
      const length = Number(headers.get('Content-Length') ?? '0');
      if (split + 4 + length > raw.length) break;
      body = raw.subarray(split + 4, split + 4 + length);
      next = split + 4 + length;
    }
    const text = body.toString('utf8');
    const isJson = /[/+]json\b/i.test(headers.get('Content-Type') ?? '');
    responses.push({ status: Number(statusLine.split(' ')[1]), headers, text, json: isJson && text ? JSON.parse(text) : undefined });
    offset = next;
  }
  return { responses, rest: raw.subarray(offset).toString('utf8') };
};

/**
 * Writes `bytes` as they are to the local stack's gateway over one raw connection (for requests no HTTP client sends:
 * CONNECT, a bad chunked body, pipelined requests, an HTTP/2 preface) and reads what it answers until it closes the
 * connection or `waitMs` passes. `halfClose` ends the client's side after writing (an HTTP/0.9 request has no other end).
 */
export const rawExchange = (bytes: string | Buffer, { halfClose = false, waitMs = 15_000 } = {}): Promise<RawExchange> => {
  const url = new URL(apiBaseUrl());
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => (halfClose ? socket.end(bytes) : socket.write(bytes)));
    const chunks: Buffer[] = [];
    let closedByServer = true;
    const timer = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, waitMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ ...parseResponses(Buffer.concat(chunks)), closedByServer });
    });
  });
};
