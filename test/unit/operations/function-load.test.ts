// A function checks its environment when it loads (shared/operations/environment.ts): `httpOperation` with a
// generated entry and `consumer` with a queue of queues.ts read every variable the function's grants set, and a
// missing one fails right there, naming it, before any request or record.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { paymentPostRefund } from '#shared/compiled/operations/payments';
import { taskRunsQueue } from '#shared/events/queues';
import { httpOperation } from '#shared/http/operation';
import { compileOperation } from '#infra/build/compiled-operations';
import { consumer } from '#shared/messaging/consumer';
import { operationsById } from '#shared/operations/index';

const variables = ['TABLE_NAME', 'PAYMENTS_QUEUE_URL', 'TASK_WORK_QUEUE_URL'] as const;
let saved: Partial<Record<string, string>>;
beforeEach(() => {
  saved = Object.fromEntries(variables.map((name) => [name, process.env[name]]));
  for (const name of variables) delete process.env[name];
});
afterEach(() => {
  for (const name of variables) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('at function load', () => {
  it('httpOperation fails naming the variable the entry\'s grants need', () => {
    process.env.TABLE_NAME = 'table';
    expect(() => httpOperation(paymentPostRefund)).toThrow(/Environment variable PAYMENTS_QUEUE_URL must be set \(given by sendPayments\)/);
    delete process.env.TABLE_NAME;
    process.env.PAYMENTS_QUEUE_URL = 'https://payments';
    expect(() => httpOperation(paymentPostRefund)).toThrow(/Environment variable TABLE_NAME must be set \(given by the table grant\)/);
  });

  it('httpOperation loads once the environment is complete', () => {
    Object.assign(process.env, { TABLE_NAME: 'table', PAYMENTS_QUEUE_URL: 'https://payments' });
    expect(httpOperation(paymentPostRefund).operation.operationId).toBe('paymentPostRefund');
  });

  it('a manifest entry compiled in process (a test\'s stack) checks nothing', () => {
    expect(() => httpOperation(compileOperation(operationsById.paymentPostRefund))).not.toThrow();
  });

  it('consumer fails naming the variable its consumer definition\'s grants need', () => {
    process.env.TABLE_NAME = 'table';
    expect(() => consumer(taskRunsQueue, async () => undefined)).toThrow(/Environment variable TASK_WORK_QUEUE_URL must be set \(given by sendTaskWork\)/);
    process.env.TASK_WORK_QUEUE_URL = 'https://work';
    expect(typeof consumer(taskRunsQueue, async () => undefined)).toBe('function');
  });
});
