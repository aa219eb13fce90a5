// Authentication: who is calling. Built from verified token claims by the authorizer, handed to functions through
// the API Gateway authorizer context, and the only source of a request's tenancy.
import { z } from 'zod';
import { externalKey } from '../schemas/common';

/** The same bounds as the webhook's `organisationId`, so every organisation that sends events can read them. */
const organisationId = externalKey(128).optional();

/** Claims of a verified token: integers must be JSON integers (a signed "7" or true is refused). */
export const PrincipalClaims = z.object({
  tenantId: z.int32().min(1),
  websiteId: z.int32().min(1),
  userId: z.int32().min(1),
  organisationId,
});

/** The same principal as API Gateway hands it to functions: it turns context numbers into strings. */
const contextId = z.union([z.int32().min(1), z.string().regex(/^[1-9][0-9]{0,9}$/).transform(Number).pipe(z.int32())]);
const AuthorizerPrincipal = z.object({ tenantId: contextId, websiteId: contextId, userId: contextId, organisationId });

export type Principal = z.infer<typeof PrincipalClaims>;

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
