// Unit: how a task's schedule is brought in line (shared/scheduled-tasks/schedule-sync.ts), against a scripted client:
// which requests it sends, in which order, and how failures are classified. The same module against the real
// SDK client and the scheduler emulation is test/integration/local-stack/scheduler.test.ts's.
import { describe, expect, it } from '@jest/globals';
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ResourceNotFoundException,
  ThrottlingException,
  UpdateScheduleCommand,
  ValidationException,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { recurrenceOf } from '#shared/scheduled-tasks/recurrence';
import {
  clientTokenOf,
  scheduleNameOf,
  scheduleRequestOf,
  schedulerSettingsFromEnvironment,
  ScheduleSyncFailed,
  syncScheduleWith,
  type TaskSchedule,
} from '#shared/scheduled-tasks/schedule-sync';

const settings = {
  groupName: 'test-tasks',
  targetQueueArn: 'arn:aws:sqs:us-east-1:123456789012:task-runs',
  deadLetterQueueArn: 'arn:aws:sqs:us-east-1:123456789012:task-runs-dlq',
  executionRoleArn: 'arn:aws:iam::123456789012:role/scheduler',
};
const now = new Date('2026-03-01T00:00:00Z');
const daily: TaskSchedule = {
  tenantId: 4,
  taskId: 9,
  version: 2,
  enabled: true,
  recurrence: recurrenceOf({ IsRecurringSchedule: true, Interval: 1, IntervalType: 3, TimeOfDay: '2026-03-02T09:00:00+11:00', TimeZone: 'Australia/Sydney' }),
};

type Answer = unknown | Error;
/** A client that answers each command from `answers` (by command name, in order) and records what it was sent. */
const scripted = (answers: Record<string, Answer[]>) => {
  const sent: Array<{ name: string; input: any }> = [];
  const client = {
    send: async (command: { constructor: { name: string }; input: unknown }) => {
      const name = command.constructor.name;
      sent.push({ name, input: command.input });
      const answer = answers[name]?.shift();
      if (answer instanceof Error) throw answer;
      return answer ?? {};
    },
  } as unknown as SchedulerClient;
  return { client, sent };
};
const notFound = () => new ResourceNotFoundException({ message: 'Schedule does not exist.', Message: 'x', $metadata: { httpStatusCode: 404 } });

describe('the schedule request', () => {
  it('targets the task-runs queue with the role, the task run Input, no flexible window, retries and the DLQ', () => {
    const request = scheduleRequestOf(daily, settings, now)!;
    expect(request).toMatchObject({
      Name: 't4-task9',
      GroupName: 'test-tasks',
      ScheduleExpression: 'cron(0 9 * * ? *)',
      ScheduleExpressionTimezone: 'Australia/Sydney',
      StartDate: new Date('2026-03-01T22:00:00Z'),
      State: 'ENABLED',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Arn: settings.targetQueueArn,
        RoleArn: settings.executionRoleArn,
        RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
        DeadLetterConfig: { Arn: settings.deadLetterQueueArn },
      },
    });
    expect(JSON.parse(request.Target!.Input!)).toEqual({ tenantId: 4, taskId: 9, version: 2, scheduledTime: '<aws.scheduler.scheduled-time>' });
  });

  it('deletes a one-off schedule after it fires', () => {
    const once = { ...daily, recurrence: recurrenceOf({ IsRecurringSchedule: false, TimeOfDay: '2026-03-05T10:30:00Z' }) };
    expect(scheduleRequestOf(once, settings, now)).toMatchObject({ ScheduleExpression: 'at(2026-03-05T10:30:00)', ActionAfterCompletion: 'DELETE' });
  });

  it('has none for a disabled task or one without a run left', () => {
    expect(scheduleRequestOf({ ...daily, enabled: false }, settings, now)).toBeUndefined();
    const past = { ...daily, recurrence: recurrenceOf({ IsRecurringSchedule: false, TimeOfDay: '2026-02-01T00:00:00Z' }) };
    expect(scheduleRequestOf(past, settings, now)).toBeUndefined();
  });

  it('derives the ClientToken from the operation, task, version, request and sync, within the API limits', () => {
    const token = clientTokenOf('create', { tenantId: 2_147_483_647, taskId: 2_147_483_647, version: 2_147_483_647 }, { a: 1 }, 'a1b2c3d4e5f6');
    expect(token).toMatch(/^c-2147483647-2147483647-v2147483647-[0-9a-f]{12}-a1b2c3d4e5f6$/);
    expect(token.length).toBeLessThanOrEqual(64);
    expect(clientTokenOf('create', daily, { a: 1 }, 's1')).toBe(clientTokenOf('create', daily, { a: 1 }, 's1'));
    expect(clientTokenOf('create', daily, { a: 1 }, 's1')).not.toBe(clientTokenOf('create', daily, { a: 2 }, 's1'));
    expect(clientTokenOf('create', daily, { a: 1 }, 's1')).not.toBe(clientTokenOf('create', { ...daily, version: 3 }, { a: 1 }, 's1'));
    expect(clientTokenOf('update', daily, { a: 1 }, 's1')).not.toBe(clientTokenOf('update', daily, { a: 1 }, 's2'));
  });

  it('gives each sync its own tokens, and every request of one sync (and the SDK\'s retries of it) the same one', async () => {
    const tokensOf = async () => {
      const { client, sent } = scripted({ GetScheduleCommand: [notFound()], CreateScheduleCommand: [new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} })] });
      await syncScheduleWith({ client, settings }, daily, now, { created: true }).catch(() => undefined);
      return sent.filter((call) => call.input.ClientToken !== undefined).map((call) => call.input.ClientToken as string);
    };
    const [first, second] = [await tokensOf(), await tokensOf()];
    expect(first.length).toBeGreaterThan(1);
    expect(new Set(first).size).toBe(1);
    expect(second[0]).not.toBe(first[0]);
  });

  it('names a schedule after tenant and task', () => {
    expect(scheduleNameOf(12, 345)).toBe('t12-task345');
  });
});

describe('syncing', () => {
  it('creates an absent schedule', async () => {
    const { client, sent } = scripted({ GetScheduleCommand: [notFound()] });
    await expect(syncScheduleWith({ client, settings }, daily, now)).resolves.toBe('Enabled');
    expect(sent.map((request) => request.name)).toEqual([GetScheduleCommand.name, CreateScheduleCommand.name]);
    expect(sent[1]!.input.ClientToken).toMatch(/^c-4-9-v2-/);
  });

  it('replaces a present schedule with the whole definition, and replaces it when a concurrent sync created it first', async () => {
    const stored = { State: 'ENABLED', Target: { Input: JSON.stringify({ version: 1 }) } };
    const present = scripted({ GetScheduleCommand: [stored] });
    await syncScheduleWith({ client: present.client, settings }, daily, now);
    expect(present.sent.map((request) => request.name)).toEqual([GetScheduleCommand.name, UpdateScheduleCommand.name]);
    expect(present.sent[1]!.input).toMatchObject({ ...scheduleRequestOf(daily, settings, now), ClientToken: expect.stringMatching(/^u-4-9-v2-/) });

    const raced = scripted({ GetScheduleCommand: [notFound()], CreateScheduleCommand: [new ConflictException({ message: 'exists', Message: 'x', $metadata: { httpStatusCode: 409 } })] });
    await expect(syncScheduleWith({ client: raced.client, settings }, daily, now)).resolves.toBe('Enabled');
    expect(raced.sent.map((request) => request.name)).toEqual([GetScheduleCommand.name, CreateScheduleCommand.name, UpdateScheduleCommand.name]);
  });

  it("creates a new task's schedule without reading it first: one call", async () => {
    const { client, sent } = scripted({});
    await expect(syncScheduleWith({ client, settings }, daily, now, { created: true })).resolves.toBe('Enabled');
    expect(sent.map((request) => request.name)).toEqual([CreateScheduleCommand.name]);
    expect(sent[0]!.input).toMatchObject({ ...scheduleRequestOf(daily, settings, now), ClientToken: expect.stringMatching(/^c-4-9-v2-/) });
    // A new task without a schedule (disabled) needs no call at all.
    const disabled = scripted({});
    await expect(syncScheduleWith({ client: disabled.client, settings }, { ...daily, enabled: false }, now, { created: true })).resolves.toBe('Disabled');
    expect(disabled.sent).toEqual([]);
  });

  it('falls back to reading when a new task already has a schedule (ConflictException), and leaves a newer one alone', async () => {
    const conflict = () => new ConflictException({ message: 'exists', Message: 'x', $metadata: { httpStatusCode: 409 } });
    const older = scripted({ CreateScheduleCommand: [conflict()], GetScheduleCommand: [{ State: 'ENABLED', Target: { Input: JSON.stringify({ version: 1 }) } }] });
    await expect(syncScheduleWith({ client: older.client, settings }, daily, now, { created: true })).resolves.toBe('Enabled');
    expect(older.sent.map((request) => request.name)).toEqual([CreateScheduleCommand.name, GetScheduleCommand.name, UpdateScheduleCommand.name]);
    const newer = scripted({ CreateScheduleCommand: [conflict()], GetScheduleCommand: [{ State: 'DISABLED', Target: { Input: JSON.stringify({ version: 3 }) } }] });
    await expect(syncScheduleWith({ client: newer.client, settings }, daily, now, { created: true })).resolves.toBe('Disabled');
    expect(newer.sent.map((request) => request.name)).toEqual([CreateScheduleCommand.name, GetScheduleCommand.name]);
    // Any other failure is the sync's failure, classified as always.
    const throttled = scripted({ CreateScheduleCommand: [new ThrottlingException({ message: 'slow down', Message: 'x', $metadata: { httpStatusCode: 429 } })] });
    await expect(syncScheduleWith({ client: throttled.client, settings }, daily, now, { created: true })).rejects.toBeInstanceOf(ScheduleSyncFailed);
  });

  it('writes nothing when the stored schedule already is the request', async () => {
    const request = scheduleRequestOf(daily, settings, now)!;
    const { client, sent } = scripted({ GetScheduleCommand: [{ ...request, StartDate: new Date(0) }] });
    await expect(syncScheduleWith({ client, settings }, daily, now)).resolves.toBe('Enabled');
    expect(sent).toHaveLength(1);
  });

  it('leaves a schedule of a newer version alone', async () => {
    const { client, sent } = scripted({ GetScheduleCommand: [{ State: 'ENABLED', Target: { Input: JSON.stringify({ version: 3 }) } }] });
    await expect(syncScheduleWith({ client, settings }, { ...daily, enabled: false }, now)).resolves.toBe('Enabled');
    expect(sent).toHaveLength(1);
  });

  it('deletes the schedule of a disabled task, and an absent one is already what it wants', async () => {
    const stored = { State: 'ENABLED', Target: { Input: JSON.stringify({ version: 2 }) } };
    const present = scripted({ GetScheduleCommand: [stored], DeleteScheduleCommand: [notFound()] });
    await expect(syncScheduleWith({ client: present.client, settings }, { ...daily, enabled: false }, now)).resolves.toBe('Disabled');
    expect(present.sent.map((request) => request.name)).toEqual([GetScheduleCommand.name, DeleteScheduleCommand.name]);
    expect(present.sent[1]!.input).toMatchObject({ Name: 't4-task9', GroupName: 'test-tasks', ClientToken: expect.stringMatching(/^d-4-9-v2-/) });

    const absent = scripted({ GetScheduleCommand: [notFound()] });
    await expect(syncScheduleWith({ client: absent.client, settings }, { ...daily, enabled: false }, now)).resolves.toBe('Disabled');
    expect(absent.sent).toHaveLength(1);
  });

  it.each([
    ['throttling', new ThrottlingException({ message: 'slow down', Message: 'x', $metadata: { httpStatusCode: 429 } }), true],
    ['a network failure', Object.assign(new Error('connect ECONNREFUSED'), { name: 'Error' }), true],
    ['a refusal', new ValidationException({ message: 'bad', Message: 'x', $metadata: { httpStatusCode: 400 } }), false],
    ['access denied', Object.assign(new Error('denied'), { name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 } }), false],
  ])('classifies %s as ScheduleSyncFailed (retryable: %s)', async (_, error, retryable) => {
    const { client } = scripted({ GetScheduleCommand: [error] });
    const thrown = await syncScheduleWith({ client, settings }, daily, now).catch((caught: unknown) => caught);
    expect(thrown).toBeInstanceOf(ScheduleSyncFailed);
    expect((thrown as ScheduleSyncFailed).retryable).toBe(retryable);
    expect((thrown as ScheduleSyncFailed).cause).toBe(error);
  });

  it('reads its settings from the grant environment and fails without them', () => {
    expect(() => schedulerSettingsFromEnvironment({})).toThrow(ScheduleSyncFailed);
    expect(
      schedulerSettingsFromEnvironment({
        SCHEDULE_GROUP_NAME: 'g',
        SCHEDULE_TARGET_QUEUE_ARN: 'q',
        SCHEDULE_DEAD_LETTER_QUEUE_ARN: 'd',
        SCHEDULE_ROLE_ARN: 'r',
      }),
    ).toEqual({ groupName: 'g', targetQueueArn: 'q', deadLetterQueueArn: 'd', executionRoleArn: 'r' });
  });
});
