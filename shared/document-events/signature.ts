// Moved to the contracts layer (shared/schemas/webhook-signature.ts: infra/local signs with it and may import no
// area); re-exported here while other branches of issue 17 merge. Import shared/schemas/webhook-signature.ts.
export * from '../schemas/webhook-signature';
