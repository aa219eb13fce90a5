// Authentication: who is calling. Built from verified token claims by the authorizer, handed to functions through
// the API Gateway authorizer context, and the only source of a request's tenancy.
import type { z } from 'zod';
import { AuthorizerPrincipal, PrincipalClaims } from '#shared/compiled/schemas/principal';
import type { PrincipalClaims as PrincipalClaimsSchema } from '#shared/schemas/principal';

/** Claims of a verified token (zod schema in shared/schemas/principal.ts; this is its compiled, zod-free form). */
export { PrincipalClaims };

export type Principal = z.infer<typeof PrincipalClaimsSchema>;

/** API Gateway REST authorizer context values are strings, numbers or booleans; never nested objects. */
export type AuthorizerContext = Record<string, string | number | boolean>;

export const toAuthorizerContext = (principal: Principal): AuthorizerContext => ({
  tenantId: principal.tenantId,
  websiteId: principal.websiteId,
  userId: principal.userId,
  ...(principal.organisationId ? { organisationId: principal.organisationId } : {}),
});

/** Reads the principal back from the context API Gateway passes (it may have turned numbers into strings). */
export const principalFromAuthorizerContext = (context: unknown): Principal | undefined => {
  const parsed = AuthorizerPrincipal.safeParse(context ?? {});
  return parsed.success ? parsed.data : undefined;
};
