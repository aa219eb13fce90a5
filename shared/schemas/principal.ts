// Schemas: the tenancy claims of a verified token, and the same principal as API Gateway hands it to functions.
// shared/auth/principal.ts uses their compiled form (shared/compiled/schemas/principal.ts), so the authorizer and
// every function read claims without loading zod.
import { z } from 'zod';
import { externalKey } from './common';

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
export const AuthorizerPrincipal = z.object({ tenantId: contextId, websiteId: contextId, userId: contextId, organisationId });
