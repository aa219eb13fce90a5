// Data layer: per-tenant named sequences (location IDs, payment IDs, reference numbers, ...). Each is one small
// item `T#<tenant>` / `SEQ#<name>` incremented atomically with UpdateItem ADD: no global hot counter, and no
// transaction (a value is taken before the write that uses it). A create checks everything it can before taking a
// value (the item-size guard included); `withNextValue` gives the value back when the write that used it is refused
// with nothing written (a name or GUID taken meanwhile), unless a later value was kept since: then the gap stays.
import { randomUUID } from 'node:crypto';
import { DeleteCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { ApiError, ConcurrentModification, SequenceExhausted, WriteOutcomeUnknown } from '#shared/errors';
import { apartFromWriteLedger } from '#shared/invocation';
import type { TableContext } from './client';
import { isConditionFailure } from './conditional-write';
import { KeyAlreadyClaimed } from './idempotency';
import { composeKey, tenantKey, type ItemKey } from './partition';
import { withOptimisticRetry } from './retry';
import { transact } from './transaction';

/** Rounds of offering a value back and noting it, each lost only to another writer's change in between (`giveBackValue`). */
const giveBackRounds = 8;

/** Values are signed 32-bit integers (the spec's `int`). */
export const maxSequenceValue = 2 ** 31 - 1;

export const sequenceKey = (tenantId: number, name: string): ItemKey => tenantKey(tenantId, composeKey('SEQ', name));

/**
 * The UpdateItem that takes the tenant's next value of `name` (the new value in `Attributes.value`, the noted gaps in
 * `Attributes.gaps`: the whole item, a few bytes more than the value alone and no more capacity).
 */
export const nextValueInput = (tableName: string, tenantId: number, name: string): UpdateCommandInput => ({
  TableName: tableName,
  Key: sequenceKey(tenantId, name),
  UpdateExpression: 'ADD #value :one',
  ExpressionAttributeNames: { '#value': 'value' },
  ExpressionAttributeValues: { ':one': 1 },
  ReturnValues: 'ALL_NEW',
});

/**
 * The noted gaps a sequence keeps: past `maxNotedGaps`, a take drops all but the highest `keptNotedGaps`. A gap
 * noted below a value a create kept can never be taken back, and nothing else removed it: under contention (3,000
 * Idempotency-Key replays, each taking a value and giving it back beside other creates) the set grew, and each take
 * wrote the whole item (9 write units a take; a bad-day review). A gap far below the top is one that many later
 * values would all have to come back past; dropped, it stays a gap in the IDs, as any value a create kept below it.
 */
export const maxNotedGaps = 32;
export const keptNotedGaps = 16;

/**
 * The next value (1, 2, 3, ...) of the tenant's sequence `name`. `description` names it in the error when the
 * tenant has used every value up to 2^31 - 1 (e.g. "location ID"). A sequence with more than `maxNotedGaps` noted
 * gaps has the lowest dropped (best effort: the value is taken whatever becomes of that).
 */
export const nextValue = ({ client, tableName }: TableContext, tenantId: number, name: string, description = `${name} number`): Promise<number> =>
  apartFromWriteLedger(async () => {
    const { Attributes } = await pastTransactions(() => client.send(new UpdateCommand(nextValueInput(tableName, tenantId, name))));
    const value = Number(Attributes?.value);
    if (!Number.isInteger(value) || value > maxSequenceValue) throw new SequenceExhausted(description);
    const gaps = Attributes?.gaps instanceof Set ? [...(Attributes.gaps as Set<unknown>)].map(Number).sort((a, b) => a - b) : [];
    if (gaps.length > maxNotedGaps) {
      const dropped = new Set(gaps.slice(0, gaps.length - keptNotedGaps));
      await client
        .send(new UpdateCommand({ TableName: tableName, Key: sequenceKey(tenantId, name), UpdateExpression: 'DELETE #gaps :dropped', ExpressionAttributeNames: { '#gaps': 'gaps' }, ExpressionAttributeValues: { ':dropped': dropped } }))
        .catch(() => undefined);
    }
    return value;
  });

/**
 * Sends a single-item write of the sequence again while a give-back's transaction holds the item: DynamoDB refuses it
 * (TransactionConflictException, nothing written) and the SDK does not retry that.
 */
const pastTransactions = <T>(send: () => Promise<T>): Promise<T> =>
  withOptimisticRetry(send, { isRetryable: (error) => (error as Error | undefined)?.name === 'TransactionConflictException' });

/** A give-back's step whose condition failed (the sequence is not where the step needs it). */
class StepRefused extends Error {
  override readonly name = 'StepRefused';
}

/**
 * Puts `value` back: the sequence returns to `value - 1` if `value` is the last one handed out. While a later value
 * is out, its holder may be giving it back too (a burst of creates refused together, over however long their
 * refusals take: one name, one RefNumber, one Idempotency-Key's twins), so a value that cannot go back now is noted
 * in the sequence item's `gaps` set, and whoever brings the sequence down to it takes it back too, and the next, and
 * so on (each step one conditional UpdateItem: the sequence is at that value and the value is a noted gap); a value
 * whose noting finds the sequence brought down to it is offered again (and noted again if one was taken past it). No one
 * waits: the values of such a burst go back from the top down, whatever order their refusals come in, and the
 * sequence is as the winner left it. A value below one a write kept stays a gap (noted: harmless). Only for a value no
 * stored item uses. A sequence brought back to 0 is removed: the tenant's items are then exactly as they were before
 * (a refused first write leaves nothing behind).
 *
 * Each step is a transaction with a ClientRequestToken, so the SDK's resend of a step whose answer was lost (it
 * landed) is answered as the first and writes nothing: a plain conditional UpdateItem's resend landed again once
 * another create had taken the value back up, and took that create's value (found by a bad-day review: every later
 * create of the tenant collided with the payment it kept). Nothing is added to the item: a refused create leaves it
 * exactly as it was. And once the value is noted, it is taken back only as a noted gap: whoever walked the gaps down
 * past it may have handed it out again since (before, the holder's own step took it back from its new holder).
 */
export const giveBackValue = ({ client, tableName }: TableContext, tenantId: number, name: string, value: number): Promise<boolean> =>
  apartFromWriteLedger(async () => {
    const key = sequenceKey(tenantId, name);
    const names = { '#value': 'value', '#gaps': 'gaps' };
    /** Sends a conditional write: true when it was written, false when its condition failed. */
    const whenConditionHolds = (sent: Promise<unknown>): Promise<boolean> =>
      sent.then(
        () => true,
        (error: unknown) => {
          if (isConditionFailure(error)) return false;
          throw error;
        },
      );
    /**
     * Brings the sequence from `top` (if it is there, and, when `noted`, `top` is a noted gap) to the value below, in a
     * transaction whose token makes a resend harmless (a conflict with another is sent again under a new token).
     */
    const stepDown = async (top: number, noted: boolean): Promise<boolean> => {
      try {
        await transact(
          { client, tableName },
          [
            {
              role: 'step',
              item: {
                Update: {
                  TableName: tableName,
                  Key: key,
                  UpdateExpression: 'SET #value = :below DELETE #gaps :top',
                  ConditionExpression: noted ? '#value = :value AND contains(#gaps, :value)' : '#value = :value',
                  ExpressionAttributeNames: names,
                  ExpressionAttributeValues: { ':value': top, ':below': top - 1, ':top': new Set([top]) },
                },
              },
            },
          ],
          // A new token for each send after a conflict (nothing written): a token is the request's, for ten minutes.
          { tokenOfAttempt: () => randomUUID(), errors: { step: () => new StepRefused() } },
        );
        return true;
      } catch (error) {
        if (error instanceof StepRefused) return false;
        throw error;
      }
    };
    /**
     * Takes `value` back if the sequence is at it (once noted, only while it is a noted gap), then the noted gaps right
     * below it; a sequence at 0 is removed.
     */
    const takeBack = async (noted: boolean): Promise<boolean> => {
      if (!(await stepDown(value, noted))) return false;
      let top = value - 1;
      while (top > 0 && (await stepDown(top, true))) top -= 1;
      if (top === 0) {
        await whenConditionHolds(
          pastTransactions(() => client.send(new DeleteCommand({ TableName: tableName, Key: key, ConditionExpression: '#value = :zero', ExpressionAttributeNames: { '#value': 'value' }, ExpressionAttributeValues: { ':zero': 0 } }))),
        );
      }
      return true;
    };
    /** Notes `value` as a gap, if a later value is still out (the sequence above it). */
    const note = (): Promise<boolean> =>
      whenConditionHolds(
        pastTransactions(() => client.send(new UpdateCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: 'ADD #gaps :self',
          ConditionExpression: '#value > :value',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':value': value, ':self': new Set([value]) },
        }))),
      );
    // Taken back, or noted while a later value is out, then offered once more (the values above may have come back
    // down to it meanwhile, before it was noted); if not, whoever brings the sequence down to it takes it back. A note
    // refused means the sequence came down to the value (its holder of the next one gave it back, and stopped at an
    // unnoted value): offered again, and if a new value was taken past it meanwhile, noted again. Each round needs
    // another writer's change in between, so a few rounds settle it; past them, the value stays a gap.
    for (let round = 0; round < giveBackRounds; round += 1) {
      if (await takeBack(false)) return true;
      if (await note()) return takeBack(true);
    }
    return false;
  });

/**
 * True when a write that took a value was refused with nothing written: a 4xx ApiError (a condition of its single
 * atomic write failed, or a check before it), contention that ran out of retries (an ApiError caused by
 * ConcurrentModification: every transaction sent was cancelled), or its Idempotency-Key already claimed (a replay,
 * read before the write or a twin's claim that cancelled the transaction: idempotency.ts). Never a write whose outcome
 * is unknown, whatever its cause: its resends were cancelled, but an earlier attempt may have landed (transaction.ts).
 */
export const wroteNothing = (error: unknown): boolean =>
  error instanceof KeyAlreadyClaimed ||
  (error instanceof ApiError && !(error instanceof WriteOutcomeUnknown) && ((error.status >= 400 && error.status < 500) || error.cause instanceof ConcurrentModification));

/**
 * A create found a stored item at the value it took: the sequence is behind the items it numbers (nothing known makes
 * it so, but a restore of the table, an item written by hand or a defect would). Nothing was written. The value is in
 * use, so it is never given back (given back, every later create took it again and was refused, for good); the create
 * takes the next value instead (`pastValuesInUse`). Past `valueInUseRounds` values in use, a 500: the data needs a look.
 */
export class ValueInUse extends Error {
  override readonly name = 'ValueInUse';
  constructor(description: string, value: number) {
    super(`${description} ${value} is already used: the sequence is behind its items`);
  }
}

/** Values in use a create steps past before it gives up (each step takes one value: a sequence behind heals as it goes). */
export const valueInUseRounds = 10;

/**
 * Runs `create` with `first`, and while it finds its value in use (`ValueInUse`), with the next value `next` takes.
 * `onValue` is told each value tried (the one a refusal must give back is the last).
 */
export const pastValuesInUse = async <T>(first: number, next: () => Promise<number>, create: (value: number) => Promise<T>, onValue: (value: number) => void = () => undefined): Promise<T> => {
  let value = first;
  for (let round = 1; ; round += 1) {
    onValue(value);
    try {
      return await create(value);
    } catch (error) {
      if (!(error instanceof ValueInUse) || round >= valueInUseRounds) throw error;
      value = await next();
    }
  }
};

/** Where a create's values come from, and where a value it did not use goes back. */
export interface ValueSource {
  /** Takes the next value. */
  readonly take: () => Promise<number>;
  /** Gives a value back (best effort: a value not given back is a gap in the numbering, nothing more). */
  readonly giveBack: (value: number) => Promise<unknown> | void;
}

/**
 * Runs `create` with `first` (a value taken from `source`, perhaps in one round trip with other reads), stepping past
 * values in use to the next `source.take` gives (`pastValuesInUse`). When `create` is refused with nothing written
 * (`wroteNothing`: a replay of an Idempotency-Key included), the last value tried is given back, so a refused create
 * leaves the sequence as it was; a value found in use is never given back. Not for a create written in several
 * transactions (a value some of them used is not the create's to give back).
 */
export const withTakenValue = async <T>(first: number, source: ValueSource, create: (value: number) => Promise<T>): Promise<T> => {
  let value = first;
  try {
    return await pastValuesInUse(first, source.take, create, (tried) => {
      value = tried;
    });
  } catch (error) {
    if (wroteNothing(error)) await Promise.resolve().then(() => source.giveBack(value)).catch(() => undefined);
    throw error;
  }
};

/** `withTakenValue` with the tenant's next value of the sequence `name`. */
export const withNextValue = async <T>(table: TableContext, tenantId: number, name: string, description: string, create: (value: number) => Promise<T>): Promise<T> => {
  const take = () => nextValue(table, tenantId, name, description);
  return withTakenValue(await take(), { take, giveBack: (value) => giveBackValue(table, tenantId, name, value) }, create);
};
