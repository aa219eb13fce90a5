// Integration (bad-day review): a location and the tenant's default pointer are read as of one moment. Read by two
// GetItems sent at once, a "make this the default" committed between them (the pointer read before its commit, the
// location after) showed the location at its new Version beside the old pointer: a delete then took it for a
// non-default location, passed its Version condition and left the pointer naming a deleted location (a restore later
// made it the default again while its own answer said IsDefault false). Here the other save commits while the
// delete's read is under way, at the worst point the read allows: after the pointer's own read has answered when the
// pointer is read alone, before the one read that holds both otherwise. On DynamoDB Local.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createDocumentClient } from '#shared/data/client';
import { defaultPointerKey } from '#shared/tenant-locations/keys';
import { createTenantLocationRepository } from '#shared/tenant-locations/repository';
import { createTenantLocationService } from '#shared/tenant-locations/service';
import { freshTenantId, openLocalTable, storedItem } from '#test/integration/data/support';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';

const table = openLocalTable();
const clean = createTenantLocationService({ repository: createTenantLocationRepository(table) });

/** The sort keys of the items a read request names (GetItem's Key, or every Get of a TransactGetItems). */
const sortKeysRead = (input: unknown): string[] => {
  const { Key, TransactItems } = input as { Key?: Record<string, unknown>; TransactItems?: { Get?: { Key?: Record<string, unknown> } }[] };
  const keys = Key ? [Key] : (TransactItems ?? []).map((item) => item.Get?.Key ?? {});
  return keys.map((key) => {
    const sk = key.sk as { S?: string } | string | undefined;
    return (typeof sk === 'string' ? sk : sk?.S) ?? '';
  });
};

const raw = localDynamoDbClient();
afterAll(() => raw.destroy());
const race: { armed: boolean; between?: () => Promise<void>; pointerAnswered?: Promise<unknown> } = { armed: false };
raw.middlewareStack.add(
  (next) => async (args) => {
    if (!race.armed) return next(args);
    const keys = sortKeysRead(args.input);
    if (keys.length === 1 && keys[0] === defaultPointerKey(0).sk) {
      // The pointer read alone: sent now, its answer awaited by the location's read below.
      const answer = next(args);
      race.pointerAnswered = answer.catch(() => undefined);
      return answer;
    }
    if (keys.some((sk) => sk.startsWith('LOC#'))) {
      race.armed = false;
      // A pointer read sent beside this one is given its turn to be sent and answered first.
      await new Promise((resolve) => setImmediate(resolve));
      await race.pointerAnswered;
      await race.between?.();
    }
    return next(args);
  },
  { step: 'initialize', name: 'commitDuringTheRead' },
);
const racing = createTenantLocationService({ repository: createTenantLocationRepository({ client: createDocumentClient(raw), tableName: requireLocalEndpoints().tableName }) });

describe('Delete while another save makes the location the default', () => {
  it('removes the pointer with the location it names, whatever the other save committed during the read', async () => {
    const principal = { tenantId: freshTenantId(), websiteId: 1, userId: 3 };
    const one = (await clean.save(principal, { Name: 'One' })).location;
    await clean.save(principal, { Name: 'Two' });
    race.between = async () => {
      const made = await clean.save(principal, { ID: one.ID, Name: 'One', IsDefault: true });
      expect(made.location.IsDefault).toBe(true);
    };
    race.armed = true;

    const deleted = await racing.delete(principal, one.ID);

    expect(race.armed).toBe(false);
    expect(deleted.IsActive).toBe(false);
    expect(await storedItem(table, defaultPointerKey(principal.tenantId))).toBeUndefined();
    // Restored, it is not the default, as its answer says.
    const restored = await clean.save(principal, { ID: one.ID, Name: 'One', IsActive: true });
    expect(restored.location.IsDefault).toBe(false);
    expect((await clean.get(principal, one.ID)).IsDefault).toBe(false);
  });
});
