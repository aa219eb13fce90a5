// Benchmark reference, not a function of the service: a bundle that only loads the zod operations manifest
// (shared/operations/: zod and the schemas of every operation, which every HTTP function loaded before the
// functions took their compiled form) and answers without any AWS SDK call. Its cold start shows what zod costs.
import { operationList } from '#shared/operations/index';

export const handler = async (): Promise<{ statusCode: number; body: string }> => ({
  statusCode: 200,
  body: JSON.stringify({ operations: operationList.length }),
});
