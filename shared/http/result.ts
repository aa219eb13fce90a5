// HTTP entry: a handler's answer when the manifest's success status is not the whole story (201 + Location, 202,
// ...). The content-negotiation middleware serialises it; a plain value is sent with the manifest's success status.

const resultBrand = Symbol('HttpResult');

/** A handler's answer with its own status and headers. */
export interface HttpResult {
  readonly [resultBrand]: true;
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

export const respond = (status: number, body: unknown, headers: Record<string, string> = {}): HttpResult => ({
  [resultBrand]: true,
  status,
  body,
  headers,
});

export const isHttpResult = (value: unknown): value is HttpResult => typeof value === 'object' && value !== null && resultBrand in value;
