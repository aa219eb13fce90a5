// Authentication: who is calling. Built from verified token claims by the authorizer, handed to functions through
// the API Gateway authorizer context, and the only source of a request's tenancy.
import { z } from 'zod';

const positiveInt32 = z.coerce.number().pipe(z.int32().min(1));

export const PrincipalClaims = z.object({
  tenantId: positiveInt32,
  websiteId: positiveInt32,
  userId: positiveInt32,
  organisationId: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9_.:-]+$/)
    .optional(),
});

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
  const parsed = PrincipalClaims.safeParse(context ?? {});
  return parsed.success ? parsed.data : undefined;
};
