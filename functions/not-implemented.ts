// Entry: the function of every operation whose issue has not landed yet. It runs the normal stack (negotiation,
// authentication, validation) and answers 501, so clients see the final contract of errors from day one.
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { NotImplemented } from '../shared/errors';
import { httpOperation } from '../shared/http/operation';
import { compiledOperations } from '../shared/compiled/operations';
import type { CompiledOperation } from '../shared/operations/compiled-operation';
import { resourceOf } from '../shared/operations/routes';

const handlers = new Map<string, ReturnType<ReturnType<typeof httpOperation>['handler']>>();

/** One bundle serves several operations: the route API Gateway matched (`resource`) says which. */
export const handler = async (event: APIGatewayProxyEvent, context: Context) => {
  const operation: CompiledOperation | undefined = compiledOperations.find(
    (candidate) =>
      candidate.method === event.httpMethod && resourceOf(candidate.path) === resourceOf(event.resource ?? ''),
  );
  if (!operation) throw new Error(`No operation for ${event.httpMethod} ${event.resource}`);
  let operationHandler = handlers.get(operation.operationId);
  if (!operationHandler) {
    operationHandler = httpOperation(operation).handler(async () => {
      throw new NotImplemented(operation.operationId);
    });
    handlers.set(operation.operationId, operationHandler);
  }
  return operationHandler(event, context);
};
