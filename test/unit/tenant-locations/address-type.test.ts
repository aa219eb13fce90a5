// Unit tests of the tenant-location service's pure rules (shared/tenant-locations/service.ts): the addressType
// parameter of GetDefaultAddress.
import { describe, expect, it } from '@jest/globals';
import { ApiError } from '#shared/errors';
import { parseAddressType } from '#shared/tenant-locations/service';

/** What parseAddressType threw, as a client would see it. */
const refusal = async (pending: Promise<unknown>) => {
  try {
    await pending;
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, name: error.name, detail: error.detail, errors: error.errors };
    throw error;
  }
  throw new Error('expected the call to be refused, but it succeeded');
};

const addressTypeProblem = {
  status: 400,
  name: 'ValidationFailed',
  detail: 'The request is not valid; see errors for each field.',
  errors: [{ parameter: 'addressType', detail: 'must be Billing, Delivery, Service or Postal (or 1, 2, 3, 4)' }],
};

describe('parseAddressType', () => {
  it.each([
    ['Billing', { name: 'Billing', value: 1, flag: 'IsDefaultBilling' }],
    ['delivery', { name: 'Delivery', value: 2, flag: 'IsDefaultDeliverTo' }],
    ['SERVICE', { name: 'Service', value: 3, flag: 'IsDefaultServiceTo' }],
    ['Postal', { name: 'Postal', value: 4, flag: 'IsPostalAddress' }],
    [' postal ', { name: 'Postal', value: 4, flag: 'IsPostalAddress' }],
    ['1', { name: 'Billing', value: 1, flag: 'IsDefaultBilling' }],
    ['2', { name: 'Delivery', value: 2, flag: 'IsDefaultDeliverTo' }],
    ['3', { name: 'Service', value: 3, flag: 'IsDefaultServiceTo' }],
    ['4', { name: 'Postal', value: 4, flag: 'IsPostalAddress' }],
  ])('accepts %j', (raw, expected) => {
    expect(parseAddressType(raw)).toEqual(expected);
  });

  it.each(['', 'Bill', 'Shipping', '0', '5', '01', '1.0', '-1', 'Billing1', '1,2'])('refuses %j with errors[].parameter "addressType"', async (raw) => {
    expect(await refusal(Promise.resolve().then(() => parseAddressType(raw)))).toEqual(addressTypeProblem);
  });
});

