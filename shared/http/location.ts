// HTTP: the one way a `Location` header is built: the URL of the operation that reads the created record, from its
// manifest route path template (`/Payment/{id}` -> `/api/Payment/7`). Pass the compiled entry (a function's bundle
// loads no zod) or the manifest entry: both carry the path.
import { apiBasePath } from '#shared/operations/routes';

/** The operation that reads a record: any entry with a route path template. */
export interface ReadRoute {
  readonly operationId: string;
  readonly path: string;
}

/** `apiBasePath` + the operation's path with each `{name}` replaced by its parameter (URI-encoded). */
export const locationOf = (operation: ReadRoute, parameters: Readonly<Record<string, string | number>>): string =>
  apiBasePath +
  operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
    if (!Object.hasOwn(parameters, name)) throw new Error(`${operation.operationId}: no value for the path parameter ${name}`);
    return encodeURIComponent(String(parameters[name]));
  });
