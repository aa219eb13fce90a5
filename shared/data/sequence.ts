// Data layer: per-tenant named sequences (location IDs, payment IDs, reference numbers, ...). Each is one small
// item `T#<tenant>` / `SEQ#<name>` incremented atomically with UpdateItem ADD: no global hot counter, and no
// transaction (a value is taken before the write that uses it, so a write that fails later leaves a gap, which IDs
// may have).
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SequenceExhausted } from '../errors';
import type { TableContext } from './client';
import { composeKey, tenantKey, type ItemKey } from './partition';

/** Values are signed 32-bit integers (the spec's `int`). */
export const maxSequenceValue = 2 ** 31 - 1;

export const sequenceKey = (tenantId: number, name: string): ItemKey => tenantKey(tenantId, composeKey('SEQ', name));

/**
 * The next value (1, 2, 3, ...) of the tenant's sequence `name`. `description` names it in the error when the
 * tenant has used every value up to 2^31 - 1 (e.g. "location ID").
 */
export const nextValue = async ({ client, tableName }: TableContext, tenantId: number, name: string, description = `${name} number`): Promise<number> => {
  const { Attributes } = await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: sequenceKey(tenantId, name),
      UpdateExpression: 'ADD #value :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const value = Number(Attributes?.value);
  if (!Number.isInteger(value) || value > maxSequenceValue) throw new SequenceExhausted(description);
  return value;
};
