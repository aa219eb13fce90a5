// Local stack: API Gateway's REQUEST authorizer step. Invokes the authorizer function, caches its policy per
// identity source (the Authorization header) like the stack's authorizer, and evaluates the IAM policy against
// the request's method ARN.
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { rawHeaderLines } from '#shared/http/header-lines';
import { isJsonObject } from '#shared/openapi/types';

export type AuthorizerOutcome =
  | { readonly kind: 'allow'; readonly authorizer: Record<string, unknown> }
  /** No token, or the function threw `Unauthorized`: 401. */
  | { readonly kind: 'unauthorized' }
  /** An explicit Deny, or no Allow for this method ARN: 403. */
  | { readonly kind: 'denied' }
  /** The function failed otherwise or answered something API Gateway cannot use: 500. */
  | { readonly kind: 'error'; readonly error: unknown };

export interface AuthorizerOptions {
  /** Invokes the authorizer function with the event (within the gateway's timeout); resolves to its answer. */
  readonly invoke: (event: APIGatewayRequestAuthorizerEvent) => Promise<unknown>;
  /** API Gateway's authorizer result TTL; 0 disables caching. */
  readonly cacheTtlMs: number;
  readonly now?: () => number;
}

interface AuthorizerResult {
  readonly principalId: string;
  readonly policyDocument: APIGatewayAuthorizerResult['policyDocument'];
  readonly context: Record<string, string | number | boolean>;
}

class MalformedAuthorizerResult extends Error {
  override readonly name = 'MalformedAuthorizerResult';
}


const validResult = (value: unknown): AuthorizerResult => {
  if (!isJsonObject(value)) throw new MalformedAuthorizerResult('the authorizer returned no object');
  const { principalId, policyDocument, context } = value;
  if (typeof principalId !== 'string') throw new MalformedAuthorizerResult('principalId must be a string');
  if (!isJsonObject(policyDocument) || !Array.isArray(policyDocument.Statement)) {
    throw new MalformedAuthorizerResult('policyDocument.Statement must be an array');
  }
  const flatContext: Record<string, string | number | boolean> = {};
  for (const [key, entry] of Object.entries(isJsonObject(context) ? context : {})) {
    if (entry === null || entry === undefined) continue;
    if (typeof entry !== 'string' && typeof entry !== 'number' && typeof entry !== 'boolean') {
      throw new MalformedAuthorizerResult(`context.${key} must be a string, number or boolean`);
    }
    flatContext[key] = entry;
  }
  return { principalId, policyDocument: policyDocument as unknown as AuthorizerResult['policyDocument'], context: flatContext };
};

const asList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []);

/** IAM wildcard match: `*` any run of characters (including `/`), `?` exactly one. */
const wildcardMatches = (pattern: string, value: string): boolean =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`).test(value);

const statementMatches = (statement: Record<string, unknown>, arn: string): boolean =>
  asList(statement.Action).some((action) => wildcardMatches(action.toLowerCase(), 'execute-api:invoke')) &&
  asList(statement.Resource).some((resource) => wildcardMatches(resource, arn));

/** An explicit Deny wins; otherwise some Allow must cover the method ARN. NotAction/NotResource never match. */
export const policyAllows = (policy: AuthorizerResult['policyDocument'], arn: string): boolean => {
  const statements = (policy.Statement as unknown[]).filter(isJsonObject);
  if (statements.some((statement) => statement.Effect === 'Deny' && statementMatches(statement, arn))) return false;
  return statements.some((statement) => statement.Effect === 'Allow' && statementMatches(statement, arn));
};

/** API Gateway hands the context to the integration with every value as a string, plus two fields of its own. */
const integrationContext = (result: AuthorizerResult, integrationLatency: number): Record<string, unknown> => ({
  ...Object.fromEntries(Object.entries(result.context).map(([key, value]) => [key, String(value)])),
  principalId: result.principalId,
  integrationLatency,
});

export const createAuthorizer = (options: AuthorizerOptions) => {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { readonly expiresAt: number; readonly result: AuthorizerResult }>();
  const maxCacheEntries = 1000;

  return async (event: APIGatewayRequestAuthorizerEvent, rawHeaders: readonly string[]): Promise<AuthorizerOutcome> => {
    // The identity source is required: without it API Gateway answers 401 and never calls the function. The cache
    // key is the one value the function verifies: the only Authorization line, in any case form. The gateway refuses
    // a repeated Authorization before this step; should one get here, it is neither verified nor looked up.
    const lines = rawHeaderLines(rawHeaders).get('authorization') ?? [];
    const identity = lines.length === 1 ? lines[0] : undefined;
    if (!identity) return { kind: 'unauthorized' };

    const cached = cache.get(identity);
    let result: AuthorizerResult;
    let latency = 0;
    if (cached && cached.expiresAt > now()) {
      result = cached.result;
    } else {
      cache.delete(identity);
      const started = now();
      try {
        result = validResult(await options.invoke(event));
      } catch (error) {
        if (error instanceof Error && error.message === 'Unauthorized') return { kind: 'unauthorized' };
        return { kind: 'error', error };
      }
      latency = now() - started;
      if (options.cacheTtlMs > 0) {
        if (cache.size >= maxCacheEntries) cache.delete(cache.keys().next().value as string);
        cache.set(identity, { expiresAt: now() + options.cacheTtlMs, result });
      }
    }
    // A cached policy is evaluated against this request's ARN, as on AWS (a policy for one method may deny another).
    if (!policyAllows(result.policyDocument, event.methodArn)) return { kind: 'denied' };
    return { kind: 'allow', authorizer: integrationContext(result, latency) };
  };
};
