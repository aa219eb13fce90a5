// Schemas: the tenancy claims of a verified token, and the same principal as API Gateway hands it to functions.
// shared/auth/principal.ts uses their compiled form (shared/compiled/schemas/principal.ts: ajv's validators of their
// JSON Schema), so the authorizer and every function read claims without loading zod.
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

/** The same principal as API Gateway hands it to functions, once its strings are read back as numbers. */
const contextId = z.int32().min(1);
/** A token's `exp` or `nbf` as the authorizer hands it on: whole seconds since the epoch (shared/auth/principal.ts rounds them up). */
const contextSeconds = z.int();
/**
 * The principal and its token's validity window (`exp` required: a context without it is refused, so an Allow cached
 * before the authorizer passed it on, or by anything else, never reaches a handler). API Gateway turns context numbers
 * into strings: shared/auth/principal.ts reads a string in plain decimal as its number first (`contextNumbers`).
 */
export const AuthorizerPrincipal = z.object({
  tenantId: contextId,
  websiteId: contextId,
  userId: contextId,
  organisationId,
  exp: contextSeconds,
  nbf: contextSeconds.optional(),
});
