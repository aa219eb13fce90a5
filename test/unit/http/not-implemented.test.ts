// Black-box tests of functions/not-implemented.ts: operations whose issue has not landed answer 501 through the
// normal stack, so negotiation, authentication and validation already behave as they will.
import { describe, expect, it } from '@jest/globals';
import { handler } from '../../../functions/not-implemented';
import { apiEvent, invoke, problemHeaders, problemType, requestId, validationProblem } from './support';

const notImplemented = (operationId: string) => ({
  type: problemType('not-implemented'),
  title: 'Not Implemented',
  status: 501,
  detail: `Operation ${operationId} is declared but not implemented yet.`,
  instance: requestId,
  IsSuccess: false,
  Messages: [`Operation ${operationId} is declared but not implemented yet.`],
  ErrorCode: 501,
});

// The refund of the original example is implemented now (issue 7): a delivery-receipt read stands in for it.
const getReceipt = (options: Parameters<typeof apiEvent>[0] = {}) =>
  apiEvent({ method: 'GET', resource: '/v2/DeliveryReceipt/{id}', pathParameters: { id: '12' }, ...options });

describe('not-implemented function', () => {
  it('answers 501 for deliveryReceiptGetV2 after authentication', async () => {
    const response = await invoke(handler, getReceipt());

    expect(response).toEqual({ statusCode: 501, headers: problemHeaders('json'), body: notImplemented('deliveryReceiptGetV2') });
  });

  it('answers the 501 as problem+xml to an XML client', async () => {
    const response = await invoke(handler, getReceipt({ headers: { Accept: 'text/xml' } }));

    expect(response).toEqual({
      statusCode: 501,
      headers: problemHeaders('xml'),
      body:
        '<?xml version="1.0" encoding="utf-8"?><problem xmlns="urn:ietf:rfc:7807">' +
        `<type>${problemType('not-implemented')}</type><title>Not Implemented</title><status>501</status>` +
        `<detail>Operation deliveryReceiptGetV2 is declared but not implemented yet.</detail><instance>${requestId}</instance>` +
        '<IsSuccess>false</IsSuccess><Messages><i>Operation deliveryReceiptGetV2 is declared but not implemented yet.</i></Messages>' +
        '<ErrorCode>501</ErrorCode></problem>',
    });
  });

  it('answers 401 rather than 501 without an authorizer context', async () => {
    const response = await invoke(handler, getReceipt({ authorizer: null }));

    expect(response.statusCode).toBe(401);
  });

  it('validates the path before answering 501', async () => {
    const response = await invoke(handler, getReceipt({ pathParameters: { id: '0' } }));

    expect(response).toEqual({
      statusCode: 400,
      headers: problemHeaders('json'),
      body: validationProblem([{ parameter: 'id', detail: 'must be a positive 32-bit integer' }]),
    });
  });

  it('answers 501 for a valid body of an operation whose body has no tenancy fields (scheduledTaskSave)', async () => {
    const response = await invoke(
      handler,
      apiEvent({ method: 'POST', resource: '/ScheduledTasks', body: '{}', headers: { 'Content-Type': 'application/json' } }),
    );

    expect(response).toEqual({ statusCode: 501, headers: problemHeaders('json'), body: notImplemented('scheduledTaskSave') });
  });

  it('matches the route with or without a trailing slash', async () => {
    const responses = await Promise.all(
      ['/v2/DeliveryReceipt', '/v2/DeliveryReceipt/'].map((resource) => invoke(handler, apiEvent({ method: 'PUT', resource }))),
    );

    expect(responses.map((response) => response.body)).toEqual([
      notImplemented('deliveryReceiptSearchV2'),
      notImplemented('deliveryReceiptSearchV2'),
    ]);
  });

  it('fails loudly for a route that is not in the manifest', async () => {
    await expect(invoke(handler, apiEvent({ method: 'PATCH', resource: '/Nowhere' }))).rejects.toThrow('No operation for PATCH /Nowhere');
  });
});
