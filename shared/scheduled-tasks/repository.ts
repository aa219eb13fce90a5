// Data layer: scheduled tasks in the single table, on the data kit. A task is the item `TASK` of its own partition
// (keys.ts); its runs are written beside it by the task-runs consumer (runs.ts). The task item holds the task's own
// fields (attribute names are the schema's: the runs consumer reads and writes Version, NextRunDateTime_utc,
// LastRunDateTime_utc, Status and CompletedDateTime_utc by these names), the adaptor's details without any secret
// value (`AdaptorDetails`) and the sealed secrets (`AdaptorSecrets`, AWS Encryption SDK messages, never plaintext).
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { TableContext } from '#shared/data/client';
import { defineCodec } from '#shared/data/codec';
import { assertItemFits } from '#shared/data/item-size';
import { giveBackValue, nextValue } from '#shared/data/sequence';
import { transact, type TransactionItem } from '#shared/data/transaction';
import { VersionConflict } from '#shared/errors';
import type { SealedSecret, StoredAdaptorDetails } from '#shared/crypto/secret-fields';
import type { AdaptorDetails, ScheduleState } from '#shared/schemas/scheduled-task';
import { runOwnedFields, taskFields, type TaskFieldName } from './fields';
import { latestRunsShown, runSortKeyPrefix, taskKey, taskPartition, taskSequence, taskSortKey, unsyncedKeys, unsyncedTasksIndex } from './keys';
import { publicRun, type TaskRun } from './runs';
import type { KeyClaimItem, ScheduledTaskStore, StoredTask, TaskRecord } from './store';

export type { StoredTask, TaskRecord } from './store';

/**
 * Attributes a save never writes (fields.ts, owner `runRecorder`): the task-runs consumer owns them between saves (it
 * records the last run under the condition that Version is the one its message names). A save's update leaves them
 * as they are, so a run recorded between the save's read and its write is never undone; a save that changes the
 * schedule clears them explicitly.
 */
const runOwned = new Set<string>(runOwnedFields);

const adaptorAttribute = 'AdaptorDetails';
const secretsAttribute = 'AdaptorSecrets';

interface TaskItemSource {
  readonly tenantId: number;
  readonly stored: StoredTask;
}

const tasks = defineCodec<TaskItemSource & Record<string, unknown>, TaskFieldName>({
  entity: 'ScheduledTask',
  fields: taskFields,
  key: (source) => taskKey(source.tenantId, source.stored.task.ID),
  internal: (source) =>
    source.stored.adaptor
      ? { [adaptorAttribute]: source.stored.adaptor.Details, [secretsAttribute]: source.stored.adaptor.Secrets }
      : {},
});

/** The item of a task (exported for the tests and the bench, which look at what is really stored). */
export const toTaskItem = (tenantId: number, stored: StoredTask): Record<string, unknown> =>
  tasks.toItem({ ...(stored.task as Record<string, unknown>), tenantId, stored });

const fromTaskItem = (item: Readonly<Record<string, unknown>>): StoredTask => {
  const task = tasks.fromItem(item) as unknown as TaskRecord;
  const details = item[adaptorAttribute] as AdaptorDetails | undefined;
  const outOfLine = item[unsyncedTasksIndex.partitionKey] !== undefined ? { scheduleOutOfLine: true } : {};
  if (!details) return { task, ...outOfLine };
  return { task, adaptor: { Details: details, Secrets: (item[secretsAttribute] as SealedSecret[] | undefined) ?? [] }, ...outOfLine };
};

/** What the task-runs consumer and the schedule sync add to a task item between saves (LastRunDateTime_utc, ...). */
const runStateReserveBytes = 256;

/**
 * Refuses (413) a task whose item DynamoDB would refuse, with room for the run state written between saves. The
 * save calls it before the task takes an ID (with the largest ID, so the real one can only be smaller), and write
 * again on the real item.
 */
export const assertTaskFits = (tenantId: number, stored: StoredTask): void =>
  assertItemFits(toTaskItem(tenantId, stored), { reserveBytes: runStateReserveBytes });

const isConditionFailure = (error: unknown) => error instanceof ConditionalCheckFailedException || (error as Error | undefined)?.name === 'ConditionalCheckFailedException';

export const createScheduledTaskRepository = (table: TableContext): ScheduledTaskStore => {
  const { client, tableName } = table;
  return {
    /** The next task ID of the tenant's sequence (taken before sealing: the ID is part of each secret's context). */
    nextId: (tenantId: number): Promise<number> => nextValue(table, tenantId, taskSequence, 'scheduled task ID'),
    giveBackId: (tenantId: number, id: number): Promise<boolean> => giveBackValue(table, tenantId, taskSequence, id),

    /** The task, strongly consistent, or undefined (another tenant's task is in another partition: never found). */
    async get(tenantId: number, id: number): Promise<StoredTask | undefined> {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: taskKey(tenantId, id), ConsistentRead: true }));
      return Item ? fromTaskItem(Item) : undefined;
    },

    /**
     * The task and its latest runs in one strongly consistent Query of the task's partition (keys.ts): descending,
     * `TASK` sorts after every `RUN#...`, so the first item is the task and the next ones its newest runs.
     */
    async getWithRuns(tenantId: number, id: number) {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': taskPartition(tenantId, id) },
          ScanIndexForward: false,
          ConsistentRead: true,
          Limit: latestRunsShown + 1,
        }),
      );
      const [first, ...rest] = Items;
      if (first?.sk !== taskSortKey) return undefined;
      const runs = rest.filter((item) => typeof item.sk === 'string' && item.sk.startsWith(runSortKeyPrefix)).map((item) => publicRun(item as TaskRun));
      return { stored: fromTaskItem(first), runs };
    },

    /**
     * Writes a save: a create puts the item if none exists; an update sets every attribute of `next` and removes the
     * own fields `next` no longer has, if the stored Version is `expectedVersion` (else VersionConflict). The run-owned
     * attributes are left alone unless `clearRunState` (the schedule changed, so the last run belongs to another one).
     * Every write puts the task on the reconciler's index (keys.ts `unsyncedKeys`) until its schedule sync succeeds
     * (`setScheduleState`): a process that dies between this write and the sync leaves it listed there.
     */
    async write(tenantId: number, next: StoredTask, expectedVersion: number | undefined, clearRunState = false, claim?: KeyClaimItem): Promise<void> {
      const savedAt = next.task.ModifiedDateTime_utc ?? new Date().toISOString();
      const item = { ...toTaskItem(tenantId, next), ...unsyncedKeys(tenantId, next.task.ID, savedAt) };
      assertItemFits(item, { reserveBytes: runStateReserveBytes });
      try {
        // One write (PutItem or UpdateItem), or with an Idempotency-Key's claim one transaction (data kit transact).
        const writeTask = (task: TransactionItem) => transact(table, [{ role: 'task', item: task }], { errors: { task: () => new VersionConflict() }, ...(claim ? { claim } : {}) });
        if (expectedVersion === undefined) {
          await writeTask({ Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } });
          return;
        }
        const names: Record<string, string> = { '#version': 'Version' };
        const values: Record<string, unknown> = { ':expected': expectedVersion };
        const set: string[] = [];
        const remove: string[] = [];
        const name = (attribute: string) => {
          const alias = `#a${Object.keys(names).length}`;
          names[alias] = attribute;
          return alias;
        };
        for (const [attribute, value] of Object.entries(item)) {
          if (attribute === 'pk' || attribute === 'sk' || (runOwned.has(attribute) && !clearRunState)) continue;
          const alias = name(attribute);
          values[`:${alias.slice(1)}`] = value;
          set.push(`${alias} = :${alias.slice(1)}`);
        }
        const removable = [...taskFields, adaptorAttribute, secretsAttribute] as string[];
        for (const attribute of removable) {
          if (Object.hasOwn(item, attribute) || (runOwned.has(attribute) && !clearRunState)) continue;
          remove.push(name(attribute));
        }
        await writeTask({
          Update: {
            TableName: tableName,
            Key: taskKey(tenantId, next.task.ID),
            UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
            ConditionExpression: '#version = :expected',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          },
        });
      } catch (error) {
        if (isConditionFailure(error)) throw new VersionConflict();
        throw error;
      }
    },

    /**
     * Records the state of the task's schedule if the task still has `version` (a newer save records its own). The
     * Version is not raised: the state is the server's bookkeeping, not an edit. A state the scheduler confirmed
     * (anything but `Pending`) also takes the task off the reconciler's index. Returns false when a newer save won.
     */
    async setScheduleState(tenantId: number, id: number, version: number, state: ScheduleState, restated?: KeyClaimItem): Promise<boolean> {
      const answer = restated ? [{ role: 'answer' as const, item: restated }] : [];
      try {
        await transact(
          table,
          [
            {
              role: 'task' as const,
              item: {
                Update: {
                  TableName: tableName,
                  Key: taskKey(tenantId, id),
                  UpdateExpression: state === 'Pending' ? 'SET #state = :state' : 'SET #state = :state REMOVE #indexPk, #indexSk',
                  ConditionExpression: '#version = :version',
                  ExpressionAttributeNames: {
                    '#state': 'ScheduleState',
                    '#version': 'Version',
                    ...(state === 'Pending' ? {} : { '#indexPk': unsyncedTasksIndex.partitionKey, '#indexSk': unsyncedTasksIndex.sortKey }),
                  },
                  ExpressionAttributeValues: { ':state': state, ':version': version },
                },
              },
            },
            ...answer,
          ],
          { errors: { task: () => new VersionConflict() } },
        );
        return true;
      } catch (error) {
        if (!(error instanceof VersionConflict) && !isConditionFailure(error)) throw error;
        // A newer save won: its own state stands; the claim's answer is still restated (the answer this save sends).
        if (answer.length > 0) await transact(table, answer);
        return false;
      }
    },
  };
};
