// Data layer: scheduled tasks in the single table, on the data kit: the DynamoDB adapter of both ports of store.ts,
// `ScheduledTaskStore` (createScheduledTaskRepository) and `TaskRunStore` (createTaskRunRepository), and the only
// module of the area that talks to the table. A task is the item `TASK` of its own partition (keys.ts); its runs are
// written beside it by the task-runs consumer (runs.ts decides, this module writes). The task item holds the task's own
// fields (attribute names are the schema's: the runs consumer reads and writes Version, NextRunDateTime_utc,
// LastRunDateTime_utc, Status and CompletedDateTime_utc by these names), the adaptor's details without any secret
// value (`AdaptorDetails`) and the sealed secrets (`AdaptorSecrets`, AWS Encryption SDK messages, never plaintext).
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TableContext } from '#shared/data/client';
import { defineCodec } from '#shared/data/codec';
import { assertItemFits } from '#shared/data/item-size';
import { isConditionFailure, sendMarkedUpdate } from '#shared/data/conditional-write';
import { giveBackValue, nextValue, ValueInUse } from '#shared/data/sequence';
import { transact, transactionActions, type TransactionItem } from '#shared/data/transaction';
import { VersionConflict } from '#shared/errors';
import type { SealedSecret, StoredAdaptorDetails } from '#shared/crypto/secret-fields';
import type { AdaptorDetails, ScheduleState } from '#shared/schemas/scheduled-task';
import { runOwnedFields, runReadFields, taskFields, type TaskFieldName } from './fields';
import {
  latestRunsShown,
  runKey,
  runSortKeyPrefix,
  taskKey,
  taskPartition,
  taskSequence,
  taskSortKey,
  unsyncedKeys,
  unsyncedPartition,
  unsyncedShardCount,
  unsyncedTaskOf,
  unsyncedTasksIndex,
} from './keys';
import { publicRun } from './runs';
import {
  RunAlreadyRecorded,
  type KeyClaimItem,
  type ScheduledTaskStore,
  type StoredRun,
  type StoredTask,
  type StoredTaskState,
  type TaskAdvance,
  type TaskAsRead,
  type TaskFiring,
  type TaskRecord,
  type TaskRun,
  type TaskRunStore,
  skipsRecordedOver,
} from './store';

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
/** `StoredTask.scheduleVersion`: the server's bookkeeping, never part of an answer (StoredTaskState names it). */
const scheduleVersionAttribute = 'ScheduleVersion' satisfies keyof StoredTaskState;

interface TaskItemSource {
  readonly tenantId: number;
  readonly stored: StoredTask;
}

const tasks = defineCodec<TaskItemSource & Record<string, unknown>, TaskFieldName>({
  entity: 'ScheduledTask',
  fields: taskFields,
  key: (source) => taskKey(source.tenantId, source.stored.task.ID),
  internal: (source) => ({
    ...(source.stored.scheduleVersion !== undefined ? { [scheduleVersionAttribute]: source.stored.scheduleVersion } : {}),
    ...(source.stored.adaptor ? { [adaptorAttribute]: source.stored.adaptor.Details, [secretsAttribute]: source.stored.adaptor.Secrets } : {}),
  }),
});

/** The item of a task (exported for the tests and the bench, which look at what is really stored). */
export const toTaskItem = (tenantId: number, stored: StoredTask): Record<string, unknown> =>
  tasks.toItem({ ...(stored.task as Record<string, unknown>), tenantId, stored });

const fromTaskItem = (item: Readonly<Record<string, unknown>>): StoredTask => {
  const task = tasks.fromItem(item) as unknown as TaskRecord;
  const details = item[adaptorAttribute] as AdaptorDetails | undefined;
  const scheduleVersion = item[scheduleVersionAttribute];
  const bookkeeping = {
    ...(item[unsyncedTasksIndex.partitionKey] !== undefined ? { scheduleOutOfLine: true } : {}),
    ...(typeof scheduleVersion === 'number' ? { scheduleVersion } : {}),
  };
  if (!details) return { task, ...bookkeeping };
  return { task, adaptor: { Details: details, Secrets: (item[secretsAttribute] as SealedSecret[] | undefined) ?? [] }, ...bookkeeping };
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
     * own fields `next` no longer has, if the stored task is as `read` (its Version and LastRunDateTime_utc; else
     * VersionConflict: a newer save, or a run recorded since the save read it). The run-owned
     * attributes are left alone unless `clearRunState` (the schedule changed, so the last run belongs to another one).
     * Every write puts the task on the reconciler's index (keys.ts `unsyncedKeys`) until its schedule sync succeeds
     * (`setScheduleState`): a process that dies between this write and the sync leaves it listed there.
     */
    async write(tenantId: number, next: StoredTask, read: TaskAsRead | undefined, clearRunState = false, claim?: KeyClaimItem): Promise<void> {
      const savedAt = next.task.ModifiedDateTime_utc ?? new Date().toISOString();
      const item = { ...toTaskItem(tenantId, next), ...unsyncedKeys(tenantId, next.task.ID, savedAt) };
      assertItemFits(item, { reserveBytes: runStateReserveBytes });
      try {
        // One write (PutItem or UpdateItem), or with an Idempotency-Key's claim one transaction (data kit transact).
        // A create finding its own item: its ID is in use (the sequence behind), stepped past by the service.
        const refused = () => (read === undefined ? new ValueInUse('scheduled task ID', next.task.ID) : new VersionConflict());
        const writeTask = (task: TransactionItem) => transact(table, [{ role: 'task', item: task }], { errors: { task: refused }, ...(claim ? { claim } : {}) });
        if (read === undefined) {
          await writeTask({ Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } });
          return;
        }
        const names: Record<string, string> = { '#version': 'Version', '#lastRun': 'LastRunDateTime_utc' };
        const values: Record<string, unknown> = { ':expected': read.Version };
        if (read.LastRunDateTime_utc !== undefined) values[':lastRun'] = read.LastRunDateTime_utc;
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
        const removable = [...taskFields, adaptorAttribute, secretsAttribute, scheduleVersionAttribute] as string[];
        for (const attribute of removable) {
          if (Object.hasOwn(item, attribute) || (runOwned.has(attribute) && !clearRunState)) continue;
          remove.push(name(attribute));
        }
        await writeTask({
          Update: {
            TableName: tableName,
            Key: taskKey(tenantId, next.task.ID),
            UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
            // The run recorder does not raise the Version: its LastRunDateTime_utc as read says no run came between.
            ConditionExpression: `#version = :expected AND ${read.LastRunDateTime_utc === undefined ? 'attribute_not_exists(#lastRun)' : '#lastRun = :lastRun'}`,
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
     * A one-off task that ran since the save (Completed by its run, which leaves the Version as it is: its at()
     * deleted itself) keeps the state its run recorded: a save's Enabled recorded after it said a schedule was there
     * and took the task off the reconciler's index (a bad-day review).
     */
    async setScheduleState(tenantId: number, id: number, version: number, state: ScheduleState, restated?: KeyClaimItem): Promise<boolean> {
      const answer = restated ? [{ role: 'answer' as const, item: restated }] : [];
      const listedFromNow = state === 'Pending' ? unsyncedKeys(tenantId, id, new Date().toISOString()) : undefined;
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
                  // Pending keeps the task on the reconciler's index, or puts it back (listed from now) when a
                  // confirmed state had taken it off; any other state takes it off.
                  UpdateExpression:
                    state === 'Pending'
                      ? 'SET #state = :state, #indexPk = if_not_exists(#indexPk, :indexPk), #indexSk = if_not_exists(#indexSk, :indexSk)'
                      : 'SET #state = :state REMOVE #indexPk, #indexSk',
                  ConditionExpression: '#version = :version AND (attribute_not_exists(#status) OR #status <> :completed OR #state = :state)',
                  ExpressionAttributeNames: {
                    '#state': 'ScheduleState',
                    '#version': 'Version',
                    '#status': 'Status',
                    '#indexPk': unsyncedTasksIndex.partitionKey,
                    '#indexSk': unsyncedTasksIndex.sortKey,
                  },
                  ExpressionAttributeValues: {
                    ':state': state,
                    ':version': version,
                    ':completed': 'Completed',
                    ...(listedFromNow ? { ':indexPk': listedFromNow[unsyncedTasksIndex.partitionKey], ':indexSk': listedFromNow[unsyncedTasksIndex.sortKey] } : {}),
                  },
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

    /** The reconciler's sparse index (keys.ts `unsyncedKeys`, gsi6), shard by shard, oldest first, page by page. */
    async *listOutOfLine(savedBefore: string, pageSize: number) {
      for (let shard = 0; shard < unsyncedShardCount; shard += 1) {
        let ExclusiveStartKey: Record<string, unknown> | undefined;
        do {
          const page = await client.send(
            new QueryCommand({
              TableName: tableName,
              IndexName: unsyncedTasksIndex.indexName,
              KeyConditionExpression: '#pk = :pk AND #sk < :before',
              ExpressionAttributeNames: { '#pk': unsyncedTasksIndex.partitionKey, '#sk': unsyncedTasksIndex.sortKey },
              ExpressionAttributeValues: { ':pk': unsyncedPartition(shard), ':before': savedBefore },
              ProjectionExpression: '#sk',
              Limit: pageSize,
              ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
            }),
          );
          ExclusiveStartKey = page.LastEvaluatedKey;
          for (const entry of page.Items ?? []) {
            const task = unsyncedTaskOf(entry[unsyncedTasksIndex.sortKey]);
            yield task ? { tenantId: task.tenantId, taskId: task.taskId } : undefined;
          }
        } while (ExclusiveStartKey);
      }
    },
  };
};

const runEntity = 'TaskRun';

/** The attributes of the task item the runs read (the run-read fields and the schedule's Version; never the sealed secrets). */
const runStateAttributes: readonly string[] = [...runReadFields, scheduleVersionAttribute];

/**
 * The task Update of a run: the advance, conditional on the task as the run read it (its Version, its LastRun and
 * NextRun): a save since the read (a disable, a new schedule) or another run of the task has the firing decided again.
 */
const taskUpdate = (tableName: string, firing: TaskFiring, read: StoredTaskState, advance: TaskAdvance): TransactionItem => {
  const names: Record<string, string> = { '#version': 'Version', '#last': 'LastRunDateTime_utc', '#next': 'NextRunDateTime_utc' };
  const values: Record<string, unknown> = { ':version': read.Version };
  const set: string[] = [];
  const remove: string[] = [];
  if (advance.LastRunDateTime_utc !== undefined) {
    set.push('#last = :last');
    values[':last'] = advance.LastRunDateTime_utc;
  }
  if (advance.NextRunDateTime_utc !== undefined) {
    set.push('#next = :next');
    values[':next'] = advance.NextRunDateTime_utc;
  } else {
    remove.push('#next');
  }
  if (advance.completed) {
    names['#status'] = 'Status';
    names['#completed'] = 'CompletedDateTime_utc';
    names['#state'] = 'ScheduleState';
    set.push('#status = :status', '#completed = :completed', '#state = :state');
    values[':status'] = advance.completed.Status;
    values[':completed'] = advance.completed.CompletedDateTime_utc;
    values[':state'] = advance.completed.ScheduleState;
  }
  // Optimistic on what was read: a concurrent run of the same task moved LastRun/NextRun, so decide again.
  const unchanged = (name: string, value: string | undefined, placeholder: string) => {
    if (value === undefined) return `attribute_not_exists(${name})`;
    values[placeholder] = value;
    return `${name} = ${placeholder}`;
  };
  return {
    Update: {
      TableName: tableName,
      Key: taskKey(firing.tenantId, firing.taskId),
      UpdateExpression: [set.length > 0 ? `SET ${set.join(', ')}` : '', remove.length > 0 ? `REMOVE ${remove.join(', ')}` : ''].join(' ').trim(),
      ConditionExpression: [
        '#version = :version',
        unchanged('#last', read.LastRunDateTime_utc, ':readLast'),
        unchanged('#next', read.NextRunDateTime_utc, ':readNext'),
      ].join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
};

/** The runs of tasks in the table: each run item beside its task, put once, in one transaction with the task's advance. */
export const createTaskRunRepository = (table: TableContext): TaskRunStore => {
  const { client, tableName } = table;
  const keyOf = (firing: TaskFiring) => runKey(firing.tenantId, firing.taskId, firing.scheduledTime);
  return {
    /** Reads only the attributes the runs read (fields.ts `readByRuns`; never the sealed secrets), strongly consistent. */
    async readTaskState(tenantId, taskId) {
      const { Item } = await client.send(
        new GetCommand({
          TableName: tableName,
          Key: taskKey(tenantId, taskId),
          ConsistentRead: true,
          ProjectionExpression: runStateAttributes.map((_, index) => `#a${index}`).join(', '),
          ExpressionAttributeNames: Object.fromEntries(runStateAttributes.map((name, index) => [`#a${index}`, name])),
        }),
      );
      return Item as StoredTaskState | undefined;
    },

    async readRun(firing) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: keyOf(firing), ConsistentRead: true }));
      return Item as StoredRun | undefined;
    },

    async record(firing, run, advance) {
      const { actions, add } = transactionActions<'run' | 'task'>();
      // Put where no run is, or over a StaleVersion or Disabled skip of an older Version (store.ts `recordsOver`).
      const skips = Object.fromEntries(skipsRecordedOver.map((reason, index) => [`:skip${index}`, reason]));
      add('run', {
        Put: {
          TableName: tableName,
          Item: { ...keyOf(firing), entity: runEntity, ...run },
          ConditionExpression: `attribute_not_exists(pk) OR (#reason IN (${Object.keys(skips).join(', ')}) AND #version < :version)`,
          ExpressionAttributeNames: { '#reason': 'Reason', '#version': 'Version' },
          ExpressionAttributeValues: { ...skips, ':version': run.Version },
        },
      });
      if (advance) add('task', taskUpdate(tableName, firing, advance.read, advance.advance));
      await transact(table, actions, { errors: { run: () => new RunAlreadyRecorded() } });
    },

    async markPublished(firing, at) {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: keyOf(firing),
          UpdateExpression: 'SET PublishedDateTime_utc = :now REMOVE PublishLeaseId, PublishLeaseUntil',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':now': at },
        }),
      );
    },

    async takePublishLease(firing, theirs, leaseId, until) {
      try {
        // The lease ID is this call's own: a resend (its answer lost) refused by the lease it took is this call's.
        await sendMarkedUpdate(
          client,
          {
            TableName: tableName,
            Key: keyOf(firing),
            UpdateExpression: 'SET PublishLeaseId = :mine, PublishLeaseUntil = :until',
            ConditionExpression: 'attribute_not_exists(PublishedDateTime_utc) AND PublishLeaseId = :theirs',
            ExpressionAttributeValues: { ':mine': leaseId, ':until': until, ':theirs': theirs },
          },
          { attribute: 'PublishLeaseId', value: leaseId },
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    /** A task's newest runs, newest first (C4; strongly consistent: one partition of the table). */
    async latestRuns(tenantId, taskId, limit = latestRunsShown) {
      const { Items = [] } = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :runs)',
          ExpressionAttributeValues: { ':pk': taskPartition(tenantId, taskId), ':runs': runSortKeyPrefix },
          ProjectionExpression: '#scheduled, #recorded, #outcome, #reason',
          ExpressionAttributeNames: {
            '#scheduled': 'ScheduledDateTime_utc',
            '#recorded': 'RecordedDateTime_utc',
            '#outcome': 'Outcome',
            '#reason': 'Reason',
          },
          ScanIndexForward: false,
          ConsistentRead: true,
          Limit: limit,
        }),
      );
      return Items.map((item) => publicRun(item as TaskRun));
    },
  };
};
