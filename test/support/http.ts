// Test support: calling the API over HTTP from integration and end-to-end tests. The base URL is the local stack
// started by global-setup.ts (E2E_BASE_URL); tokens are signed like `npm run token`.
import type { Principal } from '../../shared/auth/principal';
import { localDevSecret, signDevToken } from '../../shared/auth/tokens';

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
  const response = await fetch(url, { method: request.method ?? (body === undefined ? 'GET' : 'POST'), headers, body });
  const text = await response.text();
  const isJson = /[/+]json\b/i.test(response.headers.get('Content-Type') ?? '');
  return { status: response.status, headers: response.headers, text, json: (isJson && text ? JSON.parse(text) : undefined) as TBody };
};
