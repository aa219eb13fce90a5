// Benchmark peer, not a function of the service: a plain middy handler that validates its body with zod and reads
// one item, as many Lambda functions are written. No Powertools, no tracing. Bundled with the functions' own
// settings, so a function's ratio to it compares the service's whole HTTP stack with this minimum of one.
import middy from '@middy/core';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { z } from 'zod';
import { baselineKey } from './baseline-handler-key';

const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const tableName = process.env.TABLE_NAME;

const productBody = z.object({
  id: z.string().min(1).max(64),
  name: z.string().min(1).max(200),
  price: z.number().nonnegative(),
});

const json = (statusCode: number, body: unknown): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const lambdaHandler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
  let body: unknown;
  try {
    body = JSON.parse(event.body ?? '');
  } catch {
    return json(400, { message: 'The body is not JSON' });
  }
  const parsed = productBody.safeParse(body);
  if (!parsed.success) return json(400, { message: 'Invalid body', issues: parsed.error.issues });
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName, Key: baselineKey }));
  return Item ? json(200, Item) : json(404, { message: 'Not found' });
};

export const handler = middy(lambdaHandler);
