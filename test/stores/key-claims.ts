// Test support: Idempotency-Key claims (shared/data/idempotency.ts) held in memory, for the areas' in-memory stores,
// and the claim the contract suites hand a write (`keyClaim`).
// A store receives a claim as the DynamoDB transaction item the mechanism built (`KeyClaimItem`); this reads it the
// way DynamoDB would: a Put (`WriteClaim.item`, `provisional`, `pending`) takes the key unless another claim holds it
// (a pending claim of the same request may be taken over; KeyAlreadyClaimed otherwise), an Update
// (`WriteClaim.restate`) replaces the answer of a claim that exists. Anything else is refused loudly, so a store never
// silently accepts a claim it does not understand.
import { idempotencyClaimKey, KeyAlreadyClaimed, keyClaimPut, type KeyClaimItem } from '#shared/data/idempotency';

/** The claim an Idempotency-Key's mechanism hands a write (shared/data/idempotency.ts, `WriteClaim.item`): the contracts' key claim. */
export const keyClaim = (tableName: string, tenantId: number, operationId: string, key: string, requestHash = 'h'): KeyClaimItem =>
  keyClaimPut(tableName, idempotencyClaimKey(tenantId, operationId, key), { requestHash, answer: '{}' });

/** A pending claim (`WriteClaim.pending`): the first of a request's two commits, noting the version it leaves. */
export const pendingKeyClaim = (tableName: string, tenantId: number, operationId: string, key: string, requestHash: string, resumeVersion: number, resumeToken?: string): KeyClaimItem =>
  keyClaimPut(tableName, idempotencyClaimKey(tenantId, operationId, key), { requestHash, answer: '', resumeVersion, ...(resumeToken !== undefined ? { resumeToken } : {}), pendingSince: Date.now() });

const keyOf = (key: Record<string, unknown> | undefined): string => {
  if (typeof key?.pk !== 'string' || typeof key.sk !== 'string') throw new Error('a key claim names no pk and sk');
  return `${key.pk}\u0000${key.sk}`;
};

export const memoryKeyClaims = () => {
  const claims = new Map<string, Record<string, unknown>>();
  return {
    /**
     * Checks the claim's condition now (KeyAlreadyClaimed for a key taken) and returns its write, to apply once every
     * other condition of the same write holds: all or nothing, as one transaction.
     */
    check(claim: KeyClaimItem): () => void {
      if (claim.Put) {
        const item = claim.Put.Item as Record<string, unknown>;
        const key = keyOf(item);
        // As the Put's condition: no claim, one past its 24 hours, or a pending one of the same request (keyClaimPut).
        const taken = claims.get(key);
        const expired = typeof taken?.expiresAt === 'number' && taken.expiresAt <= Math.floor(Date.now() / 1000);
        if (taken && !expired && !(taken.requestHash === item.requestHash && taken.resumeVersion !== undefined)) throw new KeyAlreadyClaimed();
        return () => void claims.set(key, structuredClone(item));
      }
      if (claim.Update) {
        const key = keyOf(claim.Update.Key);
        const stored = claims.get(key);
        const values = claim.Update.ExpressionAttributeValues ?? {};
        if (!stored || stored.requestHash !== values[':requestHash']) throw new KeyAlreadyClaimed();
        return () => void claims.set(key, { ...stored, answer: values[':answer'] });
      }
      throw new Error('an in-memory store takes a key claim as a Put or an Update');
    },
    /**
     * One transaction of an in-memory store: the key's claim first (KeyAlreadyClaimed), then each condition in order
     * (the first that fails names the error, as DynamoDB's cancellation reasons do in the repositories' `transact`),
     * then every change: all or nothing.
     */
    transact(conditions: readonly (() => Error | undefined)[], apply: () => void, claim?: KeyClaimItem): void {
      const takeClaim = claim ? this.check(claim) : () => undefined;
      for (const condition of conditions) {
        const failed = condition();
        if (failed) throw failed;
      }
      takeClaim();
      apply();
    },
    /** The keys claimed, as `pk` and `sk` joined (what a test compares before and after a refused write). */
    keys: (): string[] => [...claims.keys()].sort(),
  };
};
