// The operations manifest: how its paths meet API Gateway. Plain values, free of zod, so functions can import them
// without the schemas (operation.ts re-exports them).
/** The API Gateway resource of a manifest path: without its trailing slash, which API Gateway matches either way. */
export const resourceOf = (path: string): string => (path.length > 1 ? path.replace(/\/+$/, '') || '/' : path);

/** The base path: API Gateway's stage name, so the deployed URL ends in `/api` like the spec's `{base_url}`. */
export const apiBasePath = '/api';
export const stageName = 'api';
