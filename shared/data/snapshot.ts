// Data layer: items read as they stood at one moment. Two GetItems sent at once may straddle another writer's
// transaction (one read before its commit, the other after): a decision made from both then rests on a state that
// never existed, e.g. a location at the Version a "make this the default" gave it, beside the pointer as it was before
// that same transaction, so a delete took the location for a non-default one and left the pointer naming it.
// TransactGetItems reads every item of one request as of one point between transactions (serializable), strongly
// consistent, and costs two read units per 4 KB read instead of one.
import { TransactGetCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './client';
import type { ItemKey } from './partition';
import { optimisticRetryPolicy, withOptimisticRetry } from './retry';
import { transientCancellation } from './transaction';

/** DynamoDB's limit of items in one TransactGetItems. */
export const maxSnapshotItems = 100;

/** A read cancelled because a transaction in flight held one of its items (or for capacity): nothing to answer yet. */
class SnapshotCancelled extends Error {
  override readonly name = 'SnapshotCancelled';
}

/**
 * Read again and again refused while transactions hold its items, past the optimistic-retry policy (about 4.6 s at
 * most): a dependency that cannot answer now (503 with Retry-After, shared/http/problem.ts), never a 409, which
 * would tell a reader that something it sent conflicted.
 */
export class SnapshotContended extends Error {
  override readonly name = 'SnapshotContended';
}

/**
 * The items of `keys` in the table, as of one moment, in the order of `keys` (undefined where none is stored). A read
 * that a transaction in flight cancels (TransactionConflict, which the SDK does not retry) or that capacity cancels is
 * sent again under the optimistic-retry policy, jittered.
 */
export const readSnapshot = async (table: TableContext, keys: readonly ItemKey[]): Promise<(Record<string, unknown> | undefined)[]> => {
  if (keys.length === 0) return [];
  if (keys.length > maxSnapshotItems) throw new Error(`a snapshot reads at most ${maxSnapshotItems} items`);
  const once = async (): Promise<(Record<string, unknown> | undefined)[]> => {
    try {
      const { Responses = [] } = await table.client.send(
        new TransactGetCommand({ TransactItems: keys.map((Key) => ({ Get: { TableName: table.tableName, Key } })) }),
      );
      return keys.map((_, index) => Responses[index]?.Item);
    } catch (error) {
      if (transientCancellation(error) !== undefined) throw new SnapshotCancelled((error as Error).name, { cause: error });
      throw error;
    }
  };
  return withOptimisticRetry(once, { policy: optimisticRetryPolicy, isRetryable: (error) => error instanceof SnapshotCancelled }).catch((error: unknown) => {
    throw error instanceof SnapshotCancelled ? new SnapshotContended('items held by transactions in flight past every resend', { cause: error }) : error;
  });
};
