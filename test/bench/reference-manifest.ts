// Benchmark reference, not a function of the service: a bundle that only loads the operations manifest
// (shared/operations/: zod and the schemas of every operation, which every HTTP function loads through
// shared/http/operation.ts) and answers without any AWS SDK call. Its cold start shows what the manifest costs.
import { operationList } from '../../shared/operations';

export const handler = async (): Promise<{ statusCode: number; body: string }> => ({
  statusCode: 200,
  body: JSON.stringify({ operations: operationList.length }),
});
