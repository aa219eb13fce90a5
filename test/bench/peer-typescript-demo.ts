// Benchmark peer, not a function of the service: the shape of aws-samples/serverless-typescript-demo
// (src/powertools/utilities.ts, src/api/put-product.ts and get-product.ts, src/store/dynamodb/dynamodb-store.ts at
// fea6d93): Powertools Logger, Metrics and Tracer created at module scope, a traced DynamoDB document client, a
// middy handler with captureLambdaHandler, logMetrics (cold-start metric) and injectLambdaContext, the body parsed and
// checked as put-product does, then one GetItem as get-product does and one metric. Written against the project's
// versions (Powertools 2, middy 6; the demo pins Powertools 1 and middy 3) and bundled with the functions' own
// settings, so a function's ratio to it compares what each adds on top of the SDK.
import middy from '@middy/core';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { baselineKey } from './baseline-handler-key';

const logger = new Logger({
  persistentLogAttributes: { aws_account_id: process.env.AWS_ACCOUNT_ID || 'N/A', aws_region: process.env.AWS_REGION || 'N/A' },
});
const metrics = new Metrics({
  namespace: 'BenchPeer',
  defaultDimensions: { aws_account_id: process.env.AWS_ACCOUNT_ID || 'N/A', aws_region: process.env.AWS_REGION || 'N/A' },
});
const tracer = new Tracer();
const documentClient = DynamoDBDocumentClient.from(tracer.captureAWSv3Client(new DynamoDBClient({})));
const tableName = process.env.TABLE_NAME;

interface Product {
  id: string;
  name: string;
  price: number;
}

const json = (statusCode: number, body: unknown): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const lambdaHandler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  logger.appendKeys({ resource_path: event.requestContext.resourcePath });
  const id = event.pathParameters?.id;
  if (id === undefined) {
    logger.warn("Missing 'id' parameter in path", { details: { eventPathParameters: event.pathParameters } });
    return json(400, { message: "Missing 'id' parameter in path" });
  }
  if (!event.body) return json(400, { message: 'Empty request body' });
  let product: Product;
  try {
    product = JSON.parse(event.body) as Product;
    if (typeof product !== 'object' || product === null) throw new Error('Parsed product is not an object');
  } catch (error) {
    logger.error('Failed to parse product from request body', error as Error);
    return json(400, { message: 'Failed to parse product from request body' });
  }
  if (id !== product.id) return json(400, { message: 'Product ID in path does not match product ID in body' });
  try {
    const { Item } = await documentClient.send(new GetCommand({ TableName: tableName, Key: baselineKey }));
    if (!Item) return json(404, { message: 'Product not found' });
    metrics.addMetric('productRetrieved', MetricUnit.Count, 1);
    metrics.addMetadata('productId', id);
    return json(200, Item);
  } catch (error) {
    logger.error('Unexpected error occurred while trying to retrieve a product', error as Error);
    return json(500, { message: 'Unexpected error' });
  }
};

export const handler = middy(lambdaHandler)
  .use(captureLambdaHandler(tracer))
  .use(logMetrics(metrics, { captureColdStartMetric: true }))
  .use(injectLambdaContext(logger, { clearState: true }));
