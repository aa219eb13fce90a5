// Authentication: who is calling. Built from verified token claims by the authorizer, handed to functions through
// the API Gateway authorizer context, and the only source of a request's tenancy.
//
// API Gateway caches the authorizer's Allow (and this context) per Authorization value for the authorizer's result
// TTL, whatever the token's `exp` says. So the context carries the token's validity window too, and every function
// refuses a principal whose token has lapsed by the rule the verifier applies (`tokenLapse`): no request is served
// with an expired token, whatever the cache holds (shared/http/README.md, "Authentication and tenancy").
import type { z } from 'zod';
import { AuthorizerPrincipal, PrincipalClaims } from '#shared/compiled/schemas/principal';
import type { PrincipalClaims as PrincipalClaimsSchema } from '#shared/schemas/principal';

/** Claims of a verified token (zod schema in shared/schemas/principal.ts; this is its compiled, zod-free form). */
export { PrincipalClaims };

export type Principal = z.infer<typeof PrincipalClaimsSchema>;

/**
 * The clock skew allowed between the token's issuer and us, in seconds: by the verifier (jose's `clockTolerance`) and
 * by every function's check of a cached principal, so both refuse a token at the same second.
 */
export const tokenClockToleranceSeconds = 5;

/** A verified token's validity window: `exp` and (when the token has one) `nbf`, whole seconds since the epoch. */
export interface TokenValidity {
  readonly exp: number;
  readonly nbf?: number;
}

/** The principal a function reads from the authorizer context, with its token's validity window. */
export interface AuthorizedPrincipal {
  readonly principal: Principal;
  readonly validity: TokenValidity;
}

/**
 * A JWT NumericDate may have a fraction; the context carries whole seconds. Rounding up keeps the verifier's rule
 * exact: with `now` and the tolerance whole, `exp <= now - tolerance` holds exactly when `ceil(exp) <= now - tolerance`,
 * and `nbf > now + tolerance` exactly when `ceil(nbf) > now + tolerance`. Undefined when the value is not a finite
 * number or its rounding is beyond the safe integers (the verifier refuses such a token).
 */
export const wholeSeconds = (value: unknown): number | undefined => {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const rounded = Math.ceil(value);
  return Number.isSafeInteger(rounded) ? rounded : undefined;
};

/** The current time in whole seconds since the epoch, as jose counts it. */
export const epochSeconds = (now: number = Date.now()): number => Math.floor(now / 1000);

/**
 * Why a token's window does not hold at `nowSeconds`, by exactly jose's rule with `tokenClockToleranceSeconds`:
 * expired once `exp <= now - tolerance` (so a token whose `exp` is 100 is served up to 104.999 s and refused from 105 s),
 * not yet valid while `nbf > now + tolerance`. Undefined while it holds.
 */
export const tokenLapse = (validity: TokenValidity, nowSeconds: number = epochSeconds()): 'expired' | 'not yet valid' | undefined => {
  if (validity.exp <= nowSeconds - tokenClockToleranceSeconds) return 'expired';
  if (validity.nbf !== undefined && validity.nbf > nowSeconds + tokenClockToleranceSeconds) return 'not yet valid';
  return undefined;
};

/** API Gateway REST authorizer context values are strings, numbers or booleans; never nested objects. */
export type AuthorizerContext = Record<string, string | number | boolean>;

export const toAuthorizerContext = (principal: Principal, validity: TokenValidity): AuthorizerContext => ({
  tenantId: principal.tenantId,
  websiteId: principal.websiteId,
  userId: principal.userId,
  ...(principal.organisationId ? { organisationId: principal.organisationId } : {}),
  exp: validity.exp,
  ...(validity.nbf === undefined ? {} : { nbf: validity.nbf }),
});

/** The context members API Gateway turns from numbers into strings, and the plain decimal text read back. */
const contextNumbers = ['tenantId', 'websiteId', 'userId', 'exp', 'nbf'] as const;
const plainDecimal = /^(0|-?[1-9][0-9]{0,15})$/;

/**
 * Reads the principal and its token's window back from the context API Gateway passes (it may have turned numbers
 * into strings: a string in plain decimal is read as its number, anything else is left for the schema to refuse).
 * Undefined when any of it is missing or invalid, `exp` included: fail closed.
 */
export const principalFromAuthorizerContext = (context: unknown): AuthorizedPrincipal | undefined => {
  if (context !== undefined && context !== null && (typeof context !== 'object' || Array.isArray(context))) return undefined;
  const values: Record<string, unknown> = { ...(context as Record<string, unknown> | null) };
  for (const name of contextNumbers) {
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (typeof value === 'string' && plainDecimal.test(value)) values[name] = Number(value);
  }
  const parsed = AuthorizerPrincipal.safeParse(values);
  if (!parsed.success) return undefined;
  const { tenantId, websiteId, userId, organisationId, exp, nbf } = parsed.data;
  return {
    principal: { tenantId, websiteId, userId, ...(organisationId === undefined ? {} : { organisationId }) },
    validity: { exp, ...(nbf === undefined ? {} : { nbf }) },
  };
};
