// Unit tests of the one Location mechanism (shared/http/location.ts): the URL of the operation that reads a record,
// from its manifest route path template, the same from a compiled entry as from the manifest entry.
import { describe, expect, it } from '@jest/globals';
import { deliveryReceiptGetV2 as compiledReceiptGet } from '#shared/compiled/operations/delivery-receipts';
import { paymentGetByID as compiledPaymentGet } from '#shared/compiled/operations/payments';
import { scheduledTaskGet as compiledTaskGet } from '#shared/compiled/operations/scheduled-tasks';
import { tenantLocationGet as compiledLocationGet } from '#shared/compiled/operations/tenant-locations';
import { locationOf } from '#shared/http/location';
import { deliveryReceiptGetV2 } from '#shared/operations/delivery-receipts';
import { paymentGetByID } from '#shared/operations/payments';
import { apiBasePath } from '#shared/operations/routes';
import { scheduledTaskGet } from '#shared/operations/scheduled-tasks';
import { tenantLocationGet } from '#shared/operations/tenant-locations';

describe('locationOf', () => {
  it.each([
    [tenantLocationGet, compiledLocationGet, '/api/TenantLocation/Get/7'],
    [scheduledTaskGet, compiledTaskGet, '/api/ScheduledTasks/7'],
    [paymentGetByID, compiledPaymentGet, '/api/Payment/7'],
    [deliveryReceiptGetV2, compiledReceiptGet, '/api/v2/DeliveryReceipt/7'],
  ])('builds the read operation %#.path under the base path, compiled or not', (manifestEntry, compiledEntry, expected) => {
    expect(locationOf(manifestEntry, { id: 7 })).toBe(expected);
    expect(locationOf(compiledEntry, { id: 7 })).toBe(expected);
    expect(expected.startsWith(`${apiBasePath}/`)).toBe(true);
  });

  it('encodes a parameter and reads only own members of the parameters', () => {
    expect(locationOf({ operationId: 'x', path: '/A/{name}/B' }, { name: 'a b/c' })).toBe(`${apiBasePath}/A/a%20b%2Fc/B`);
    expect(() => locationOf({ operationId: 'x', path: '/A/{constructor}' }, {})).toThrow('x: no value for the path parameter constructor');
  });
});
