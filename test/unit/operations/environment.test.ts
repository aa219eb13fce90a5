// A function's environment (shared/environment.ts, shared/operations/environment.ts): each grant sets exactly the variables it declares, and
// a function missing one fails when it loads, with the variable's name.
import { environmentValue, FunctionEnvironmentError, readFunctionEnvironment } from '#shared/environment';
import { grantVariables, loadFunctionEnvironment, requiredVariablesOf } from '#shared/operations/environment';
import { resourceGrants, type OtherResources } from '#shared/operations/grants';
import { queueDefinitions } from '#shared/events/queues';

const queues = Object.fromEntries(
  queueDefinitions.map((queue) => [queue.name, { url: `https://sqs/${queue.name}`, arn: `arn:sqs:${queue.name}`, deadLetterQueueArn: `arn:sqs:${queue.name}-dlq` }]),
) as OtherResources['queues'];
const resources = (localValues?: string): OtherResources => ({
  queues,
  webhookSecret: { arn: 'arn:secret', ...(localValues === undefined ? {} : { localValues }) },
  secretFieldsKey: { arn: 'arn:aws:kms:us-east-1:000000000000:key/1' },
  scheduler: { groupName: 'group', schedulesArn: 'arn:schedules/*', executionRoleArn: 'arn:role' },
});

describe('grant variables', () => {
  it.each(Object.keys(resourceGrants) as (keyof typeof resourceGrants)[])('%s sets exactly the variables it declares', (grant) => {
    for (const granted of [resourceGrants[grant](resources()), resourceGrants[grant](resources('local-secret-value-of-16+'))]) {
      const set = Object.keys(granted.environment);
      const declared = grantVariables[grant];
      // Every declared requirement is met by what the grant sets, and the grant sets nothing undeclared.
      expect(declared.every((variable) => variable.anyOf.some((name) => set.includes(name)))).toBe(true);
      expect(set.filter((name) => !declared.some((variable) => variable.anyOf.includes(name)))).toEqual([]);
      expect(readFunctionEnvironment(declared, granted.environment)).toEqual(granted.environment);
    }
  });
});

describe('reading a function environment', () => {
  const needs = { tableAccess: ['dynamodb:GetItem'], grants: ['sendPayments', 'readWebhookSecret'] as const, stackSettings: ['overReceiptTolerance'] as const };
  const complete = { TABLE_NAME: 't', PAYMENTS_QUEUE_URL: 'https://q', WEBHOOK_SECRETS: 's', RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT: '2.5' };

  it('returns every variable the function needs', () => {
    expect(readFunctionEnvironment(requiredVariablesOf(needs), { ...complete, OTHER: 'x' })).toEqual(complete);
  });

  it.each([
    ['TABLE_NAME', /Environment variable TABLE_NAME must be set \(given by the table grant\)/],
    ['PAYMENTS_QUEUE_URL', /Environment variable PAYMENTS_QUEUE_URL must be set \(given by sendPayments\)/],
    ['WEBHOOK_SECRETS', /Environment variable WEBHOOK_SECRET_ARN or WEBHOOK_SECRETS must be set \(given by readWebhookSecret\)/],
    ['RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT', /RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT must be set \(given by the overReceiptTolerance stack setting\)/],
  ])('fails naming %s when it is missing or empty', (name, message) => {
    const { [name as keyof typeof complete]: _, ...without } = complete;
    expect(() => readFunctionEnvironment(requiredVariablesOf(needs), without)).toThrow(message);
    expect(() => readFunctionEnvironment(requiredVariablesOf(needs), { ...complete, [name]: '' })).toThrow(FunctionEnvironmentError);
  });

  it('refuses a stack setting\'s bad value with its name', () => {
    expect(() => readFunctionEnvironment(requiredVariablesOf(needs), { ...complete, RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT: 'lots' })).toThrow(
      /RECEIPT_OVER_RECEIPT_TOLERANCE_PERCENT must be a percentage/,
    );
  });

  it('needs no TABLE_NAME without table actions', () => {
    expect(requiredVariablesOf({ tableAccess: [] })).toEqual([]);
  });
});

describe('loading at init', () => {
  it('fails the load naming the missing variable, and later reads see the checked values', () => {
    expect(() => loadFunctionEnvironment({ grants: ['sendTaskWork'] }, {})).toThrow(/TASK_WORK_QUEUE_URL must be set/);
    loadFunctionEnvironment({ grants: ['sendTaskWork'] }, { TASK_WORK_QUEUE_URL: 'https://work' });
    expect(environmentValue('TASK_WORK_QUEUE_URL', {})).toBe('https://work');
  });

  it('reads a variable no load covered now, refused by name when missing', () => {
    expect(environmentValue('SOME_URL', { SOME_URL: 'u' })).toBe('u');
    expect(() => environmentValue('MISSING_URL', {})).toThrow(/Environment variable MISSING_URL must be set/);
  });
});
