// Benchmark reference, not a function of the service: a bundle that only loads the compiled manifest
// (shared/compiled/operations/: every operation's validation plans, what the functions load instead of zod and the
// schemas) and answers without any AWS SDK call. Compare its init with "reference: zod manifest".
import { compiledOperations } from '#shared/compiled/operations/index';

export const handler = async (): Promise<{ statusCode: number; body: string }> => ({
  statusCode: 200,
  body: JSON.stringify({ operations: compiledOperations.length }),
});
