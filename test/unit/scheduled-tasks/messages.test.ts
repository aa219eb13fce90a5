// Unit: the task queues' messages (shared/scheduled-tasks/messages.ts): exactly their members, each checked, and the
// schedule Input whose placeholder the scheduler replaces.
import { describe, expect, it } from '@jest/globals';
import {
  InvalidTaskMessage,
  isUtcInstant,
  parseScheduleSyncMessage,
  parseScheduleSyncQueueMessage,
  parseTaskRunMessage,
  parseTaskWorkMessage,
  taskRunBody,
  taskRunInput,
} from '#shared/scheduled-tasks/messages';
import { scheduledTimePlaceholder, scheduleReconcileInput } from '#shared/schedules/service-schedules';

const run = { tenantId: 3, taskId: 42, version: 7, scheduledTime: '2026-03-01T09:00:00Z' };

describe('TaskRunMessage', () => {
  it('reads a firing as the scheduler sends it', () => {
    expect(parseTaskRunMessage(JSON.stringify(run))).toEqual(run);
    expect(parseTaskRunMessage(JSON.stringify({ ...run, scheduledTime: '2026-03-01T09:00:00.000Z' })).scheduledTime).toBe('2026-03-01T09:00:00.000Z');
  });

  it.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['null', 'null'],
    ['a missing member', JSON.stringify({ tenantId: 3, taskId: 42, version: 7 })],
    ['an unknown member', JSON.stringify({ ...run, extra: 1 })],
    ['a prototype key', `{"tenantId":3,"taskId":42,"version":7,"scheduledTime":"2026-03-01T09:00:00Z","__proto__":{}}`],
    ['a string id', JSON.stringify({ ...run, taskId: '42' })],
    ['a zero tenant', JSON.stringify({ ...run, tenantId: 0 })],
    ['a fractional version', JSON.stringify({ ...run, version: 1.5 })],
    ['an unsafe integer', JSON.stringify({ ...run, taskId: 2 ** 60 })],
    ['a local time', JSON.stringify({ ...run, scheduledTime: '2026-03-01T09:00:00+10:00' })],
    ['an impossible date', JSON.stringify({ ...run, scheduledTime: '2026-02-30T09:00:00Z' })],
    ['the placeholder itself', JSON.stringify({ ...run, scheduledTime: scheduledTimePlaceholder })],
    ['a huge body', JSON.stringify({ ...run, pad: 'x'.repeat(5000) })],
  ])('refuses %s', (_, body) => {
    expect(() => parseTaskRunMessage(body)).toThrow(InvalidTaskMessage);
  });

  it('never quotes the body in its error', () => {
    expect(() => parseTaskRunMessage(JSON.stringify({ ...run, taskId: 'secret-ish' }))).toThrow('Not a TaskRunMessage: taskId must be a whole number.');
  });

  it('writes the schedule Input with the placeholder, and a firing replaces it with the time in UTC seconds', () => {
    const input = taskRunInput({ tenantId: 3, taskId: 42, version: 7 });
    expect(JSON.parse(input)).toEqual({ ...run, scheduledTime: '<aws.scheduler.scheduled-time>' });
    const body = taskRunBody(input, new Date('2026-03-01T09:00:00.000Z'));
    expect(parseTaskRunMessage(body)).toEqual(run);
  });
});

describe('ScheduleSyncMessage and TaskWorkMessage', () => {
  it('reads each exactly', () => {
    expect(parseScheduleSyncMessage('{"tenantId":1,"taskId":2,"version":3}')).toEqual({ tenantId: 1, taskId: 2, version: 3 });
    const work = { ...run, taskTypeId: 0, runKey: '3:42:2026-03-01T09:00:00.000Z' };
    expect(parseTaskWorkMessage(JSON.stringify(work))).toEqual(work);
    expect(() => parseScheduleSyncMessage(JSON.stringify(run))).toThrow(InvalidTaskMessage);
    expect(() => parseTaskWorkMessage(JSON.stringify({ ...work, runKey: '' }))).toThrow(InvalidTaskMessage);
    expect(() => parseTaskWorkMessage(JSON.stringify({ ...work, taskTypeId: -1 }))).toThrow(InvalidTaskMessage);
  });

  it('knows a real instant from a look-alike', () => {
    expect(isUtcInstant('2028-02-29T23:59:59Z')).toBe(true);
    expect(isUtcInstant('2027-02-29T00:00:00Z')).toBe(false);
    expect(isUtcInstant('2026-01-01T24:00:00Z')).toBe(false);
  });

  it('reads the schedule-sync queue\'s two messages: a task\'s retry, and the reconciler\'s firing (exactly its member, a real instant)', () => {
    expect(parseScheduleSyncQueueMessage('{"tenantId":1,"taskId":2,"version":3}')).toEqual({ tenantId: 1, taskId: 2, version: 3 });
    const firing = taskRunBody(scheduleReconcileInput, new Date('2026-03-01T09:05:00Z'));
    expect(parseScheduleSyncQueueMessage(firing)).toEqual({ reconcile: '2026-03-01T09:05:00Z' });
    for (const body of [
          '{"reconcile":true}',
      '{"reconcile":"2026-03-01T09:05:00Z","tenantId":1}',
      '{"tenantId":1,"taskId":2,"version":3,"reconcile":"2026-03-01T09:05:00Z"}',
      '{"reconcile":"2026-02-30T09:05:00Z"}',
    ]) {
      expect(() => parseScheduleSyncQueueMessage(body)).toThrow(InvalidTaskMessage);
    }
  });
});
