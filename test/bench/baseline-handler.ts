// Benchmark: the cold-start baseline. The least a function of this service can do: create a DynamoDB document client
// and read one item. Bundled with the same settings as every function, so a function's ratio to it is what the
// function adds (middy, zod schemas, codecs, its own logic) on top of the SDK.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { baselineKey } from './baseline-handler-key';

const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const tableName = process.env.TABLE_NAME;

export { baselineKey };

export const handler = async (): Promise<{ statusCode: number; body: string }> => {
  const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: baselineKey }));
  return { statusCode: Item ? 200 : 404, body: JSON.stringify(Item ?? null) };
};
