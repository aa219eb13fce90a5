// Data layer: per-tenant named sequences (location IDs, payment IDs, reference numbers, ...). Each is one small
// item `T#<tenant>` / `SEQ#<name>` incremented atomically with UpdateItem ADD: no global hot counter, and no
// transaction (a value is taken before the write that uses it). A create checks everything it can before taking a
// value (the item-size guard included); `withNextValue` gives the value back when the write that used it is refused
// with nothing written (a name or GUID taken meanwhile), unless a later value was kept since: then the gap stays.
import { DeleteCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { ApiError, SequenceExhausted } from '#shared/errors';
import type { TableContext } from './client';
import { KeyAlreadyClaimed } from './idempotency';
import { composeKey, tenantKey, type ItemKey } from './partition';

/** Values are signed 32-bit integers (the spec's `int`). */
export const maxSequenceValue = 2 ** 31 - 1;

export const sequenceKey = (tenantId: number, name: string): ItemKey => tenantKey(tenantId, composeKey('SEQ', name));

/** The UpdateItem that takes the tenant's next value of `name` (the new value in `Attributes.value`). */
export const nextValueInput = (tableName: string, tenantId: number, name: string): UpdateCommandInput => ({
  TableName: tableName,
  Key: sequenceKey(tenantId, name),
  UpdateExpression: 'ADD #value :one',
  ExpressionAttributeNames: { '#value': 'value' },
  ExpressionAttributeValues: { ':one': 1 },
  ReturnValues: 'UPDATED_NEW',
});

/**
 * The next value (1, 2, 3, ...) of the tenant's sequence `name`. `description` names it in the error when the
 * tenant has used every value up to 2^31 - 1 (e.g. "location ID").
 */
export const nextValue = async ({ client, tableName }: TableContext, tenantId: number, name: string, description = `${name} number`): Promise<number> => {
  const { Attributes } = await client.send(new UpdateCommand(nextValueInput(tableName, tenantId, name)));
  const value = Number(Attributes?.value);
  if (!Number.isInteger(value) || value > maxSequenceValue) throw new SequenceExhausted(description);
  return value;
};

/** How often, at most, a value is offered back while later values are out (`giveBackValue`). */
const giveBackAttempts = 10;
/** How long, at most, a refused create spends offering its value back. */
const giveBackBudgetMs = 400;

/**
 * Puts `value` back: the sequence returns to `value - 1` if `value` is the last one handed out. While a later value
 * is out, its holder may be giving it back too (a burst of creates refused together: one name, one RefNumber, one
 * Idempotency-Key's twins), so the offer is repeated while they come back (up to ten times in 400 ms at most, after a
 * pause of about a round trip per value still out above it, at most 50 ms; only a refused request waits for it): the values of such a burst go back from the top down, and the sequence is as the winner
 * left it. A value below one a write kept stays a gap. Only for a value no stored item uses. Giving back the first
 * value removes the sequence's item, which that value created: the tenant's items are then exactly as they were
 * before (a refused first write leaves nothing behind).
 */
export const giveBackValue = async (
  { client, tableName }: TableContext,
  tenantId: number,
  name: string,
  value: number,
  { attempts = giveBackAttempts }: { readonly attempts?: number } = {},
): Promise<boolean> => {
  const key = sequenceKey(tenantId, name);
  const condition = {
    ConditionExpression: '#value = :value',
    ExpressionAttributeNames: { '#value': 'value' },
    // The value it found, so only a later value still out is waited for.
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  } as const;
  const started = Date.now();
  let lowestSeen = Number.POSITIVE_INFINITY;
  let stalls = 0;
  for (let attempt = 1; ; attempt += 1) {
    try {
      if (value === 1) {
        await client.send(new DeleteCommand({ TableName: tableName, Key: key, ...condition, ExpressionAttributeValues: { ':value': value } }));
      } else {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: key,
            UpdateExpression: 'SET #value = :previous',
            ...condition,
            ExpressionAttributeValues: { ':value': value, ':previous': value - 1 },
          }),
        );
      }
      return true;
    } catch (error) {
      if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      const current = Number((error as { Item?: { value?: { N?: string } } }).Item?.value?.N);
      // Waited for only while the values above come back: none out above, none back over two offers in a row (they
      // were kept), or the budget spent, and this value stays a gap. So a refusal waits a few hundred ms at most.
      stalls = current < lowestSeen ? 0 : stalls + 1;
      lowestSeen = Math.min(lowestSeen, current);
      if (!(current > value) || stalls >= 2 || attempt >= attempts || Date.now() - started >= giveBackBudgetMs) return false;
      // About a round trip per value still out above this one, jittered, at most 50 ms.
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, (current - value) * (5 + Math.random() * 10))));
    }
  }
};

/**
 * True when a write that took a value was refused with nothing written: a 4xx ApiError (a condition of its single
 * atomic write failed, or a check before it), or its Idempotency-Key already claimed (a replay: idempotency.ts).
 */
export const wroteNothing = (error: unknown): boolean =>
  error instanceof KeyAlreadyClaimed || (error instanceof ApiError && error.status >= 400 && error.status < 500);

/**
 * Runs a create with the tenant's next value of `name`. When `create` is refused (`wroteNothing`: nothing was
 * written with the value, a replay of an Idempotency-Key included), the value is given back,
 * so a refused create leaves the sequence as it was. Not for a create written in several transactions.
 */
export const withNextValue = async <T>(table: TableContext, tenantId: number, name: string, description: string, create: (value: number) => Promise<T>): Promise<T> => {
  const value = await nextValue(table, tenantId, name, description);
  try {
    return await create(value);
  } catch (error) {
    if (wroteNothing(error)) await giveBackValue(table, tenantId, name, value).catch(() => false);
    throw error;
  }
};
