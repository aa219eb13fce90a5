// Benchmark reference, not a function of the service: a function's DynamoDB calls and nothing else, the floor under
// its cold start. The event lists the calls step by step (the calls of a step in flight at once, the steps one after
// the other), with the items the function writes: the bench builds them with the service's own item builders
// (section-payments.ts, `paymentFloorEvents`). Bundled and cold-started like the baseline: a document client with the
// SDK's defaults, no middy, no validation, no logger, untraced. A function's ratio less its floor's is what the
// function adds beyond the calls it must make.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type GetCommandInput,
  type TransactWriteCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';

export type ReplayedCall =
  | { readonly command: 'GetItem'; readonly input: GetCommandInput }
  | { readonly command: 'UpdateItem'; readonly input: UpdateCommandInput }
  | { readonly command: 'TransactWriteItems'; readonly input: TransactWriteCommandInput };

export interface ReplayEvent {
  readonly steps: readonly (readonly ReplayedCall[])[];
}

// The functions' marshalling options (shared/data/client.ts); every other setting is the SDK's default, as the baseline's.
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false } });

const send = async (call: ReplayedCall): Promise<unknown> => {
  switch (call.command) {
    case 'GetItem':
      return client.send(new GetCommand(call.input));
    case 'UpdateItem':
      return client.send(new UpdateCommand(call.input));
    case 'TransactWriteItems':
      return client.send(new TransactWriteCommand(call.input));
    default:
      throw new Error(`reference-calls: no call ${(call as { command: unknown }).command}`);
  }
};

export const handler = async (event: ReplayEvent): Promise<{ statusCode: number; body: string }> => {
  let calls = 0;
  for (const step of event.steps) {
    await Promise.all(step.map(send));
    calls += step.length;
  }
  return { statusCode: 200, body: JSON.stringify({ calls }) };
};
