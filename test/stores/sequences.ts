// Test support: the per-tenant ID sequences of the data kit (shared/data/sequence.ts) held in memory, for the areas'
// in-memory stores: the next value from 1, and a value given back only when it is still the last one given (else it
// stays a gap), as `giveBackValue`'s condition does.
export const memorySequences = () => {
  const sequences = new Map<number, number>();
  return {
    next: async (tenantId: number): Promise<number> => {
      const value = (sequences.get(tenantId) ?? 0) + 1;
      sequences.set(tenantId, value);
      return value;
    },
    giveBack: async (tenantId: number, id: number): Promise<boolean> => {
      if (sequences.get(tenantId) !== id) return false;
      if (id === 1) sequences.delete(tenantId);
      else sequences.set(tenantId, id - 1);
      return true;
    },
    /** The last value given per tenant (the scheduled-task service's tests read it). */
    values: sequences,
  };
};
