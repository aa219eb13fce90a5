// Test support: the per-tenant ID sequences of the data kit (shared/data/sequence.ts) held in memory, for the areas'
// in-memory stores: the next value from 1; a value given back goes back when it is the last one given, and then the
// values noted right below it (given back while a later one was out) go back too; a sequence back at 0 is gone; as
// `giveBackValue` does.
export const memorySequences = () => {
  const sequences = new Map<number, number>();
  const gaps = new Map<number, Set<number>>();
  const gapsOf = (tenantId: number): Set<number> => {
    let noted = gaps.get(tenantId);
    if (!noted) gaps.set(tenantId, (noted = new Set()));
    return noted;
  };
  return {
    next: async (tenantId: number): Promise<number> => {
      const value = (sequences.get(tenantId) ?? 0) + 1;
      sequences.set(tenantId, value);
      return value;
    },
    giveBack: async (tenantId: number, id: number): Promise<boolean> => {
      const current = sequences.get(tenantId);
      if (current === undefined || current < id) return false;
      const noted = gapsOf(tenantId);
      if (current > id) {
        noted.add(id);
        return false;
      }
      let top = id - 1;
      while (top > 0 && noted.delete(top)) top -= 1;
      if (top === 0) {
        sequences.delete(tenantId);
        gaps.delete(tenantId);
      } else {
        sequences.set(tenantId, top);
      }
      return true;
    },
    /** The last value given per tenant (the scheduled-task service's tests read it). */
    values: sequences,
  };
};
