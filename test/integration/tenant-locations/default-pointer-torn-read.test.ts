// Integration (found by a bad-day review): a location and the default pointer are read by two GetItems sent at once
// (repository.get), not one atomic read. When another save makes the location the default between the two reads
// (the pointer read before its commit, the location after), Delete saw a non-default location at the new Version:
// its write passed the Version condition and left the pointer naming the deleted location, and a later restore made
// it the default again, though its own answer said IsDefault false. A write from a read as not the default now checks
// that the pointer does not name it (DefaultMoved: decided again from a fresh read).
import { afterAll, describe, expect, it } from '@jest/globals';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '#shared/data/client';
import { defaultPointerKey } from '#shared/tenant-locations/keys';
import { createTenantLocationRepository } from '#shared/tenant-locations/repository';
import { createTenantLocationService } from '#shared/tenant-locations/service';
import { freshTenantId, openLocalTable, storedItem } from '#test/integration/data/support';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';

const table = openLocalTable();
const clean = createTenantLocationService({ repository: createTenantLocationRepository(table) });

const raw = localDynamoDbClient();
afterAll(() => raw.destroy());
const hold: { armed: boolean; pointerArmed?: boolean; between?: () => Promise<void> } = { armed: false };
let pointerRead: Promise<void> = Promise.resolve();
let pointerReadDone: () => void = () => undefined;
raw.middlewareStack.add(
  (next) => async (args) => {
    const input = args.input as { Key?: Record<string, unknown> };
    const rawSk = input.Key?.sk as { S?: string } | string | undefined;
    const sk = typeof rawSk === 'string' ? rawSk : rawSk?.S;
    if (hold.pointerArmed && sk === 'LOCDEFAULT') {
      hold.pointerArmed = false;
      const result = await next(args);
      pointerReadDone();
      return result;
    }
    if (hold.armed && sk?.startsWith('LOC#')) {
      hold.armed = false;
      await pointerRead;
      await hold.between?.();
    }
    return next(args);
  },
  { step: 'initialize', name: 'badDayTornRead' },
);
const racing = createTenantLocationService({ repository: createTenantLocationRepository({ client: createDocumentClient(raw), tableName: requireLocalEndpoints().tableName }) });

describe('Delete racing a "make this the default"', () => {
  it('never leaves the pointer naming a deleted location: the delete is decided again and removes the pointer', async () => {
    const principal = { tenantId: freshTenantId(), websiteId: 1, userId: 3 };
    const one = (await clean.save(principal, { Name: 'One' })).location;
    await clean.save(principal, { Name: 'Two' });
    pointerRead = new Promise((resolve) => {
      pointerReadDone = resolve;
    });
    hold.armed = true;
    hold.pointerArmed = true;
    hold.between = async () => {
      const made = await clean.save(principal, { ID: one.ID, Name: 'One', IsDefault: true });
      expect(made.location.IsDefault).toBe(true);
    };
    const deleted = await racing.delete(principal, one.ID);
    const pointer = await storedItem(table, defaultPointerKey(principal.tenantId));
    const restored = await clean.save(principal, { ID: one.ID, Name: 'One', IsActive: true });
    const read = await clean.get(principal, one.ID);
    // A sound delete of the default removes the pointer (as a delete read as the default does).
    expect({ deleted: deleted.IsActive, pointer }).toEqual({ deleted: false, pointer: undefined });
    expect({ restored: restored.location.IsDefault, read: read.IsDefault }).toEqual({ restored: false, read: false });
  });
});
