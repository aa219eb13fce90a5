// Unit tests of the rule of a write that runs out of time (shared/http/README.md, issue 22): middy's early timeout or
// a dependency's TimeoutError answers a write 504 without Retry-After (what it sent may still commit: the answer
// must not invite a blind retry), and a read 503 with Retry-After (a retry is harmless).
import { describe, expect, it } from '@jest/globals';
import type { Context } from 'aws-lambda';
import { noteUncertainWrite } from '#shared/invocation';
import { StaleVersion } from '#shared/errors';
import { apiEvent, jsonEvent, lambdaContext, operationWith, read } from './support';

/** A context whose deadline is 600 ms away: middy answers 500 ms before it. */
const nearDeadline = (): Context => ({ ...lambdaContext(), getRemainingTimeInMillis: () => 600 });

const hangs = () => new Promise<never>(() => undefined);

const saveEvent = () => jsonEvent({ method: 'POST', resource: '/TenantLocation/Save', json: { Name: 'Main' } });

describe('a request that runs out of time', () => {
  it('a write: 504, no Retry-After, and says the change may still be applied', async () => {
    const { handler } = operationWith('tenantLocationSave', hangs);
    const response = read(await handler(saveEvent(), nearDeadline()));
    expect(response.statusCode).toBe(504);
    expect(response.headers).not.toHaveProperty('Retry-After');
    expect(response.body).toMatchObject({ status: 504, title: 'Gateway Timeout', detail: expect.stringContaining('may still be applied') });
  });

  it("a write whose dependency's request timed out: 504 too", async () => {
    const { handler } = operationWith('tenantLocationSave', () => {
      throw Object.assign(new Error('Connection timed out after 3000 ms'), { name: 'TimeoutError' });
    });
    const response = read(await handler(saveEvent(), lambdaContext()));
    expect(response.statusCode).toBe(504);
    expect(response.headers).not.toHaveProperty('Retry-After');
  });

  it('a read: 503 with Retry-After', async () => {
    const { handler } = operationWith('tenantLocationGet', hangs);
    const response = read(await handler(apiEvent({ pathParameters: { id: '5' } }), nearDeadline()));
    expect(response.statusCode).toBe(503);
    expect(response.headers).toMatchObject({ 'Retry-After': '2' });
  });

  // A write attempt that may have landed (shared/data/write-outcome.ts notes it), and whose resends then failed with
  // anything: a throttle, a reset, a 500. A client told "retry shortly" would, without a key, do it twice.
  const throttled = () => Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ProvisionedThroughputExceededException', $fault: 'client', $metadata: { httpStatusCode: 400 } });

  it('a write that failed after a write attempt that may have landed: 504, whatever error ended it', async () => {
    const { handler } = operationWith('tenantLocationSave', () => {
      noteUncertainWrite();
      throw throttled();
    });
    const response = read(await handler(saveEvent(), lambdaContext()));
    expect(response.statusCode).toBe(504);
    expect(response.headers).not.toHaveProperty('Retry-After');
  });

  it('a write that failed without one (every write answered or refused whole): 503 with Retry-After', async () => {
    const { handler } = operationWith('tenantLocationSave', () => {
      throw throttled();
    });
    const response = read(await handler(saveEvent(), lambdaContext()));
    expect(response.statusCode).toBe(503);
    expect(response.headers).toMatchObject({ 'Retry-After': expect.any(String) });
  });

  it("a refusal of the service's own stays what it is, and a read stays 503", async () => {
    const refused = operationWith('tenantLocationSave', () => {
      noteUncertainWrite();
      throw new StaleVersion();
    });
    expect(read(await refused.handler(saveEvent(), lambdaContext())).statusCode).toBe(409);
    const reading = operationWith('tenantLocationGet', () => {
      noteUncertainWrite();
      throw throttled();
    });
    expect(read(await reading.handler(apiEvent({ pathParameters: { id: '5' } }), lambdaContext())).statusCode).toBe(503);
  });
});
