// Data layer: writes of one or more items that must all happen or none. Each action carries a named role, so a
// cancelled transaction becomes the domain error of the role whose condition failed (a `claim` -> NameTaken, a
// `record` -> StaleVersion, ...), never a raw DynamoDB error. One action alone is sent as a single-item write (half
// the cost of a transaction), with the same error mapping, except a create, whose repeat after a lost answer must be
// answered as the first (`sendSingle`).
import {
  DeleteCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { ConcurrentModification, WriteOutcomeUnknown } from '#shared/errors';
import { randomUUID } from 'node:crypto';
import type { PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from './client';
import { markedWrite, markOf, sendMarkedPut, sendMarkedUpdate, writeMarkAttribute } from './conditional-write';
import { KeyAlreadyClaimed } from './idempotency';
import { withOptimisticRetry, type RetryPolicy } from './retry';
import { mayHaveLanded } from './write-outcome';
import { assertItemFits } from './item-size';
import { tableDefinition } from './table';

/** One item of TransactWriteItems: exactly one of Put, Update, Delete, ConditionCheck (TableName included). */
export type TransactionItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface TransactionAction<Role extends string> {
  readonly role: Role;
  readonly item: TransactionItem;
}

/** The error a failed condition of each role becomes; a role not listed becomes ConcurrentModification. */
export type ErrorsByRole<Role extends string> = Partial<Readonly<Record<Role, () => Error>>>;

export interface TransactOptions<Role extends string> {
  readonly errors?: ErrorsByRole<Role>;
  /**
   * Makes the transaction idempotent for 10 minutes (DynamoDB's ClientRequestToken): a repeat with the same token
   * and the same actions succeeds without writing again. Up to 36 characters. Forces a transaction even for one action.
   */
  readonly clientRequestToken?: string;
  /**
   * A ClientRequestToken for each identity of the write instead (1, 2, ...: `SendIdentity`): a send cancelled by a
   * conflict with another transaction wrote nothing, so it is sent again, under the next token (a token's repeat may
   * be answered with its first outcome); after a send that may have landed, every later send keeps its token. For a
   * write whose SDK retries must stay idempotent and whose conflicts are worth resending.
   */
  readonly tokenOfAttempt?: (identity: number) => string;
  /**
   * The Idempotency-Key's claim of the write (idempotency.ts, `WriteClaim.item`), written first in the same
   * transaction; a twin's claim found there cancels the whole transaction as KeyAlreadyClaimed (before any other
   * role's error: whatever else failed, the twin's commit is why).
   */
  readonly claim?: TransactionItem;
}

/** DynamoDB's limit of actions in one transaction. */
export const maxTransactionActions = 100;

/**
 * Actions in transaction-sized chunks, for writes too large for one transaction (each chunk is atomic, the whole is
 * not: give each chunk its own ClientRequestToken so a retried chunk never writes twice).
 */
export const chunkActions = <T>(actions: readonly T[], size = maxTransactionActions): T[][] => {
  const chunks: T[][] = [];
  for (let start = 0; start < actions.length; start += size) chunks.push(actions.slice(start, start + size));
  return chunks;
};

/** Builds the list of actions of a transaction, in order (the order decides which failed role is reported first). */
export const transactionActions = <Role extends string>() => {
  const actions: TransactionAction<Role>[] = [];
  return {
    actions,
    add(role: Role, item: TransactionItem) {
      actions.push({ role, item });
    },
  };
};

/**
 * Refuses (ItemTooLarge, 413) any action DynamoDB would refuse for size before a single one is sent: a Put's whole
 * item, a Delete's or ConditionCheck's key, an Update's key and the values it writes (the item it changes is not
 * known here; an area that rewrites a whole record by Update checks the record itself, as scheduled tasks do).
 * `transact` runs it on every write; a write in several transactions runs it on all of them first.
 */
export const assertActionsFit = (items: readonly TransactionItem[]): void => {
  for (const item of items) {
    if (item.Put) assertItemFits(item.Put.Item as Record<string, unknown>);
    const key = item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key;
    if (key) assertItemFits(key as Record<string, unknown>);
    if (item.Update?.ExpressionAttributeValues) assertItemFits(item.Update.ExpressionAttributeValues as Record<string, unknown>);
  }
};

/** The item an action names: its table and primary key (a Put's from its item). */
const itemOf = (item: TransactionItem): string | undefined => {
  const action = item.Put ?? item.Update ?? item.Delete ?? item.ConditionCheck;
  const key = (item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key) as Record<string, unknown> | undefined;
  return action && key ? JSON.stringify([action.TableName, key[tableDefinition.partitionKey], key[tableDefinition.sortKey]]) : undefined;
};

/**
 * Refuses a transaction that names one item in two actions, before it is sent: DynamoDB refuses it whole
 * (ValidationException "Transaction request cannot include multiple operations on one item", a 500 to the caller),
 * while DynamoDB Local accepts it and applies both in turn, so only a check here shows it in tests. A create whose
 * item another action of its transaction names (a refund whose new ID is its payment's, a location whose ID is in its
 * parent chain) is an area's to step past before it builds the transaction; reaching this is a defect.
 */
export const assertOneActionPerItem = <Role extends string>(actions: readonly TransactionAction<Role>[]): void => {
  const roles = new Map<string, Role>();
  for (const { role, item } of actions) {
    const named = itemOf(item);
    if (named === undefined) continue;
    const first = roles.get(named);
    if (first !== undefined) throw new Error(`a transaction names one item twice (roles ${first} and ${role}): DynamoDB refuses it`);
    roles.set(named, role);
  }
};

const conditionFailed = <Role extends string>(role: Role | undefined, errors: ErrorsByRole<Role>): Error => {
  const build = role !== undefined && Object.hasOwn(errors, role) ? errors[role] : undefined;
  return build ? build() : new ConcurrentModification();
};

/** A create's condition: the item must not exist yet. */
const createCondition = /^\s*attribute_not_exists\(\s*#?[A-Za-z0-9_]+\s*\)\s*$/;

const conditionOf = (item: TransactionItem): string | undefined => item.Put?.ConditionExpression ?? item.Update?.ConditionExpression;
const isCreate = (item: TransactionItem): boolean => item.Put !== undefined && createCondition.test(item.Put.ConditionExpression ?? '');
/**
 * One action alone, as its own write (half the capacity of a transaction of one, and under contention a conditional
 * write is decided in turn, where concurrent transactions of one item cancel each other). The SDK sends a write again
 * when its answer is lost, and a conditional write's repeat fails its condition on the write's own result:
 * - a create (`attribute_not_exists`) goes as a transaction of one: its ClientRequestToken (the SDK makes one per
 *   call, its resend carries the same) has DynamoDB answer the repeat as the first; a new item has no contention
 *   (before: a task create answered 409 and gave back the ID its task used, so every later create of the tenant took
 *   that ID and answered 409);
 * - an edit is marked with a UUID of its call (`markedWrite`): a repeat refused by an item bearing the mark is the
 *   call's own write (before: an edit with Version answered stale-version with no other writer).
 */
const sendSingle = async ({ client }: TableContext, item: TransactionItem): Promise<boolean> => {
  if (isCreate(item)) return false;
  const mark = markOf(item);
  if (item.Put) await (mark === undefined ? client.send(new PutCommand(item.Put)) : sendMarkedPut(client, item.Put, mark));
  else if (item.Update) await (mark === undefined ? client.send(new UpdateCommand(item.Update)) : sendMarkedUpdate(client, item.Update, { attribute: writeMarkAttribute, value: mark }));
  else if (item.Delete) await client.send(new DeleteCommand(item.Delete));
  else return false;
  return true;
};

/** The action as `sendSingle` sends it: an edit (a conditional Put or Update that is not a create) marked. */
const asSingle = (item: TransactionItem, mark: string): TransactionItem =>
  conditionOf(item) === undefined || isCreate(item) ? item : (markedWrite(item as { Put?: PutCommandInput; Update?: UpdateCommandInput }, mark) as TransactionItem);

/**
 * What makes a send of `transact` the same write when it is sent again: its transaction's ClientRequestToken (the
 * caller's, or one of its own) and the mark of an edit sent alone. Each send takes a new one, but a send that may have
 * landed (an SDK attempt timed out, broke or got a 5xx, then its resend was cancelled by a conflict or for capacity:
 * write-outcome.ts `mayHaveLanded`) keeps it for the next: a first attempt that landed is then answered as written
 * (the token's repeat, the edit's own mark), where a new token or mark would meet its own write as another's (a
 * create's item taken, an edit's Version moved: ValueInUse, NameTaken or 409 stale-version for the caller's own write,
 * or worse, a refund written again under the next ID).
 */
interface SendIdentity {
  readonly token: string;
  readonly mark: string;
  /** The caller chose the token (`clientRequestToken`, `tokenOfAttempt`): the write goes as a transaction even alone. */
  readonly tokenGiven: boolean;
}

/** Sends of a write that another transaction held an item of (TransactionConflict), the first included. */
export const conflictAttempts = 3;
/** The resends' policy: the data kit's retry with short delays (full jitter under 20, then 40 ms). */
const conflictPolicy: RetryPolicy = { maxAttempts: conflictAttempts, baseDelayMs: 20, maxDelayMs: 80 };

/**
 * A conflict with another transaction in flight: nothing was written, and the same write may simply be sent again.
 * Only `transact` sees it: past it, it is a ConcurrentModification like any other.
 */
class TransactionConflict extends ConcurrentModification {
  override readonly name: string = 'TransactionConflict';
  /** An earlier SDK attempt of the send may have landed (write-outcome.ts): resent under the same identity. */
  mayHaveLanded = false;
}

/**
 * A transaction DynamoDB cancelled for capacity (a reason `ThrottlingError`, on-demand or an index's, or
 * `ProvisionedThroughputExceeded`): nothing was written. The SDK does not retry it (it arrives as a
 * TransactionCanceledException); `transact` sends it again like a conflict, and one that outlasts the resends is a
 * dependency's throttling (503 with Retry-After to a caller, a redelivery to a consumer), never a 500.
 */
export class TransactionThrottled extends Error {
  override readonly name = 'TransactionThrottled';
  /** As TransactionConflict's. */
  mayHaveLanded = false;
}

/** A send DynamoDB cancelled with nothing done by it (a conflict, capacity): one `transact` may send again. */
const isCancellation = (error: unknown): error is TransactionConflict | TransactionThrottled => error instanceof TransactionConflict || error instanceof TransactionThrottled;

const throttlingReasons = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded']);

/**
 * Why DynamoDB cancelled a transaction (a write or a TransactGetItems) with nothing done, when the same request sent
 * again may succeed: another transaction held one of its items (`conflict`), or capacity (`throttled`). Undefined for
 * every other failure, a failed condition included (a caller that sees both checks the condition first).
 */
export const transientCancellation = (error: unknown): 'conflict' | 'throttled' | undefined => {
  const name = (error as Error | undefined)?.name;
  if (name === 'TransactionConflictException') return 'conflict';
  if (name !== 'TransactionCanceledException') return undefined;
  const codes = ((error as TransactionCanceledException).CancellationReasons ?? []).map((reason) => reason.Code);
  if (codes.includes('TransactionConflict')) return 'conflict';
  if (codes.some((code) => code !== undefined && throttlingReasons.has(code))) return 'throttled';
  return undefined;
};

/**
 * Writes the actions atomically. A condition that fails throws the error of the first action (in order) whose
 * reason is ConditionalCheckFailed. A write cancelled only because another transaction held one of its items
 * (TransactionConflict, which the SDK does not retry: AWS documents it as transient, nothing written) is sent again,
 * up to `conflictAttempts` sends, a few tens of milliseconds apart, jittered (`withOptimisticRetry`), its conditions checked again each time:
 * a write that decided nothing from a read (a create, a payment) never answers a conflict it had no part in. One
 * with a ClientRequestToken is not (DynamoDB may answer a token's repeat with the first outcome: its caller retries
 * with a new token); one with `tokenOfAttempt` is, under its next token. A conflict that outlasts them throws
 * ConcurrentModification, which the optimistic retry policy retries from a fresh read. A transaction cancelled for
 * capacity is sent again the same way (TransactionThrottled). After a send that may have landed, every later send
 * keeps its token and mark (`SendIdentity`), and one whose sends are spent is WriteOutcomeUnknown (504).
 */
export const transact = async <Role extends string>(
  table: TableContext,
  actions: readonly TransactionAction<Role>[],
  options: TransactOptions<Role> = {},
): Promise<void> => {
  const { tokenOfAttempt, clientRequestToken, ...send } = options;
  let identity: SendIdentity | undefined;
  let identities = 0;
  /** Once a send may have landed, every later send of this write is the same write (and its end unknown). */
  let mayHaveLanded = false;
  return withOptimisticRetry(
    async () => {
      if (identity === undefined) {
        identities += 1;
        const given = tokenOfAttempt?.(identities) ?? clientRequestToken;
        identity = { token: given ?? randomUUID(), mark: randomUUID(), tokenGiven: given !== undefined };
      }
      try {
        return await transactOnce(table, actions, send, identity);
      } catch (error) {
        if (isCancellation(error) && error.mayHaveLanded) mayHaveLanded = true;
        // Sent again under a new identity unless a send of it may have landed.
        if (!mayHaveLanded) identity = undefined;
        throw error;
      }
    },
    {
      policy: conflictPolicy,
      isRetryable: (error) => isCancellation(error) && clientRequestToken === undefined,
    },
  ).catch((error: unknown) => {
    // Its resends spent, a write that may have landed is neither a conflict to decide again from a fresh read (a new
    // identity would meet its own write) nor a throttle to retry shortly: its outcome is unknown (504).
    if (mayHaveLanded && isCancellation(error)) throw new WriteOutcomeUnknown(error);
    throw error instanceof TransactionConflict ? new ConcurrentModification() : error;
  });
};

const transactOnce = async <Role extends string>(
  table: TableContext,
  actions: readonly TransactionAction<Role>[],
  { errors = {}, claim }: Omit<TransactOptions<Role>, 'clientRequestToken' | 'tokenOfAttempt'>,
  identity: SendIdentity,
): Promise<void> => {
  if (claim) return transactClaimed(table, claim, actions, { errors }, identity);
  if (actions.length === 0) return;
  if (actions.length > maxTransactionActions) throw new Error(`a transaction holds at most ${maxTransactionActions} actions`);
  const single = actions.length === 1 && !identity.tokenGiven;
  // Alone, an edit carries its mark, and is measured with it.
  const [only] = single && actions[0] ? [{ ...actions[0], item: asSingle(actions[0].item, identity.mark) }] : actions;
  assertActionsFit(single && only ? [only.item] : actions.map((action) => action.item));
  if (!single) assertOneActionPerItem(actions);
  try {
    if (single && only && (await sendSingle(table, only.item))) return;
    await table.client.send(new TransactWriteCommand({ TransactItems: actions.map((action) => action.item), ClientRequestToken: identity.token }));
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'ConditionalCheckFailedException') throw conditionFailed(only?.role, errors);
    const reasons = name === 'TransactionCanceledException' ? ((error as TransactionCanceledException).CancellationReasons ?? []) : [];
    const failed = reasons.findIndex((reason) => reason.Code === 'ConditionalCheckFailed');
    if (failed >= 0) throw conditionFailed(actions[failed]?.role, errors);
    const transient = transientCancellation(error);
    const cancelled =
      transient === 'conflict' ? new TransactionConflict() : transient === 'throttled' ? new TransactionThrottled('transaction cancelled for capacity', { cause: error }) : undefined;
    if (!cancelled) throw error;
    cancelled.mayHaveLanded = mayHaveLanded(error);
    throw cancelled;
  }
};

/** The role of the Idempotency-Key's claim in a transaction (no area's action may take the name). */
const claimRole = 'idempotencyKey';

/** `transact` with the key's claim first: its failed condition is KeyAlreadyClaimed. */
const transactClaimed = <Role extends string>(
  table: TableContext,
  claim: TransactionItem,
  actions: readonly TransactionAction<Role>[],
  { errors = {} }: Pick<TransactOptions<Role>, 'errors'>,
  identity: SendIdentity,
): Promise<void> => {
  const role = claimRole as Role;
  if (actions.some((action) => action.role === role)) throw new Error(`the role name ${role} is the claim's`);
  return transactOnce(table, [{ role, item: claim }, ...actions], { errors: { ...errors, [role]: () => new KeyAlreadyClaimed() } }, identity);
};
