// Benchmark: the item the cold-start baseline and the peers read (seeded by bench.ts), apart from the handlers so
// that a peer importing it does not bundle the baseline's module-scope client.
export const baselineKey = { pk: 'BENCH#BASELINE', sk: 'ITEM' } as const;
