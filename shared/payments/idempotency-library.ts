// Lazy chunk (`#lazy/idempotency`, package.json "imports"): Powertools' idempotency utility and its DynamoDB
// persistence, loaded only by a payment write that carries an Idempotency-Key (idempotency.ts). Re-exports the
// library and nothing of ours, so the chunk built beside a function's bundle holds no second copy of a class the
// rest of the function checks with instanceof.
export {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyPersistenceLayerError,
  IdempotencyValidationError,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
export { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
