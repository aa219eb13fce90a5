// Unit tests of the tenancy walk (shared/http/tenancy.ts): a body's TenantID, WebsiteID and UserID are checked
// against the token at every depth where the schema declares a record, and filled from the token where absent or 0;
// one mechanism for every operation, driven by the body's shape (generated from the document's request schema).
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { applyTenancy } from '#shared/http/tenancy';
import { operationsById } from '#shared/operations/index';
import { tenancyFields } from '#shared/schemas/common';
import { shapeOfSchema } from '#infra/build/request-shapes';
import { apiEvent, jsonEvent, operationWith, principal, problemHeaders, problemType, requestId } from './support';
import { problemOutcome } from '#test/support/responses';

const Leaf = z.strictObject({ Name: z.string().optional(), ...tenancyFields });
const Body = z.strictObject({
  ...tenancyFields,
  Child: Leaf.optional(),
  Children: z.array(Leaf).optional(),
  Maybe: Leaf.nullable().optional(),
  Either: z.union([z.string(), Leaf]).optional(),
  Nested: z.strictObject({ Deeper: z.array(z.array(Leaf)).optional() }).optional(),
  Plain: z.strictObject({ Name: z.string().optional() }).optional(),
});
const shape = shapeOfSchema(Body);
const own = { TenantID: principal.tenantId, WebsiteID: principal.websiteId, UserID: principal.userId };

const mismatchAt = (body: unknown) => {
  try {
    applyTenancy(body, principal, shape);
    return undefined;
  } catch (error) {
    return (error as { status: number; errors?: readonly { pointer: string }[] }).errors?.[0]?.pointer;
  }
};

describe('applyTenancy', () => {
  it("sets zero tenancy fields of every record to the token's, fills absent ones at the top level only, and leaves others alone", () => {
    const body = {
      Child: { Name: 'a', TenantID: 0 },
      Children: [{ TenantID: 0 }, { ...own }, {}],
      Maybe: { UserID: 0 },
      Either: { Name: 'b', WebsiteID: 0 },
      Nested: { Deeper: [[{ WebsiteID: 0 }]] },
      Plain: { Name: 'c' },
    };
    expect(applyTenancy(body, principal, shape)).toEqual({
      ...own,
      Child: { Name: 'a', TenantID: own.TenantID },
      Children: [{ TenantID: own.TenantID }, { ...own }, {}],
      Maybe: { UserID: own.UserID },
      Either: { Name: 'b', WebsiteID: own.WebsiteID },
      Nested: { Deeper: [[{ WebsiteID: own.WebsiteID }]] },
      Plain: { Name: 'c' },
    });
    expect(body.Child).toEqual({ Name: 'a', TenantID: 0 }); // the input is not changed
  });

  it.each([
    ['the top level', { TenantID: 8 }, '/TenantID'],
    ['a nested record', { Child: { TenantID: 8 } }, '/Child/TenantID'],
    ['a record in a list', { Children: [{}, { WebsiteID: 2 }] }, '/Children/1/WebsiteID'],
    ['a nullable record', { Maybe: { UserID: 4 } }, '/Maybe/UserID'],
    ['a union member', { Either: { TenantID: 9 } }, '/Either/TenantID'],
    ['lists of lists', { Nested: { Deeper: [[], [{ TenantID: 2 }]] } }, '/Nested/Deeper/1/0/TenantID'],
    ['a record that does not declare it (the first differing field wins)', { Plain: { TenantID: 8 } }, '/Plain/TenantID'],
  ])('refuses another tenancy in %s with its pointer', (_case, body, pointer) => {
    expect(mismatchAt(body)).toBe(pointer);
  });

  it('leaves a value of the wrong type and null records to validation', () => {
    expect(applyTenancy({ Child: { TenantID: 'x' }, Maybe: null }, principal, shape)).toEqual({ ...own, Child: { TenantID: 'x' }, Maybe: null });
  });

  it('finds every record of the manifest that carries a tenancy field, at any depth (scheduled tasks, receipts, payments)', () => {
    const task = { Name: 'x', TaskTypeID: 1, AdaptorDetails: { Actions: [{ TranslatorActionDetails: [{ TenantID: 8 }] }] } };
    const walk = (id: keyof typeof operationsById, body: unknown) => {
      try {
        applyTenancy(body, principal, shapeOfSchema(operationsById[id].requestBody!.schema));
        return undefined;
      } catch (error) {
        return (error as { errors?: readonly { pointer: string }[] }).errors?.[0]?.pointer;
      }
    };
    expect(walk('scheduledTaskSave', task)).toBe('/AdaptorDetails/Actions/0/TranslatorActionDetails/0/TenantID');
    expect(walk('scheduledTaskSave', { AdaptorDetails: { TranslatorDetails: [{ WebsiteID: 5 }] } })).toBe('/AdaptorDetails/TranslatorDetails/0/WebsiteID');
    expect(walk('deliveryReceiptSaveV2', { Value: { TenantID: 8 } })).toBe('/Value/TenantID');
    expect(walk('paymentPost', { Object: { PaymentLogs: [{ UserID: 4 }] } })).toBe('/Object/PaymentLogs/0/UserID');
  });
});

describe('operation stack: tenancy below the top level', () => {
  const forbidden = (field: string, pointer: string) => {
    const detail = `${field} at ${pointer} does not match the caller's token.`;
    const errors = [{ pointer, detail: "differs from the caller's token" }];
    return {
      statusCode: 403,
      headers: problemHeaders('json'),
      body: { type: problemType('tenancy-mismatch'), title: 'Tenancy mismatch', status: 403, detail, instance: requestId, errors, ...problemOutcome(403, detail, errors) },
    };
  };

  it('answers 403 for AdaptorDetails.TenantID of another tenant, before the handler runs', async () => {
    const { call, seen } = operationWith('scheduledTaskSave');
    const json = await call(jsonEvent({ method: 'POST', resource: '/ScheduledTasks/', json: { Name: 'a', TaskTypeID: 1, AdaptorDetails: { TenantID: 8 } } }));
    expect({ json, handled: seen.length }).toEqual({ json: forbidden('TenantID', '/AdaptorDetails/TenantID'), handled: 0 });
  });

  it('answers 403 for a receipt Value.TenantID of another tenant in XML', async () => {
    const { call, seen } = operationWith('deliveryReceiptSaveV2');
    const response = await call(
      apiEvent({
        method: 'POST',
        resource: '/v2/DeliveryReceipt/',
        body: '<SaveRequest><Value><TenantID>8</TenantID></Value></SaveRequest>',
        headers: { 'Content-Type': 'application/xml' },
      }),
    );
    expect({ response, handled: seen.length }).toEqual({ response: forbidden('TenantID', '/Value/TenantID'), handled: 0 });
  });

  it("hands a nested record's zero tenancy to the handler as the token's, and leaves absent ones absent", async () => {
    const { call, seen } = operationWith('scheduledTaskSave');
    await call(jsonEvent({ method: 'POST', resource: '/ScheduledTasks/', json: { Name: 'a', TaskTypeID: 1, AdaptorDetails: { Name: 'x', TenantID: 0 } } }));
    expect((seen[0]?.body as { AdaptorDetails: unknown }).AdaptorDetails).toEqual({ Name: 'x', TenantID: own.TenantID });
  });
});
