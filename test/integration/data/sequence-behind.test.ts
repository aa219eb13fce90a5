// Integration (bad-day review #3): a sequence behind the items it numbers heals itself. Nothing known puts a sequence
// behind (a restore of the table, an item written by hand or a defect would), but when one was, a create found its
// own item at the value it took, was refused with nothing written, and gave the value back: the sequence stepped
// down to it again and every later create of the tenant took it and was refused, a 409 for good. Now a create that
// finds its value in use steps past it (never giving it back) and is made with the next: each area's creates, on
// DynamoDB Local, with the tenant's sequence item removed after three creates (the sequence back at 0).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { localSecretCipher } from '#shared/crypto/envelope';
import { sequenceKey } from '#shared/data/sequence';
import { receiptSequence } from '#shared/delivery-receipts/keys';
import { logger } from '#shared/observability/logger';
import { paymentSequence } from '#shared/payments/keys';
import { createScheduledTaskRepository } from '#shared/scheduled-tasks/repository';
import { createScheduledTaskService } from '#shared/scheduled-tasks/service';
import { taskKey, taskSequence } from '#shared/scheduled-tasks/keys';
import { locationSequence } from '#shared/tenant-locations/keys';
import { createTenantLocationRepository } from '#shared/tenant-locations/repository';
import { createTenantLocationService } from '#shared/tenant-locations/service';
import type { TableContext } from '#shared/data/client';
import { freshTenantId, openLocalTable, tenantItems } from '#test/integration/data/support';
import { linesOf, openReceipts } from '#test/integration/delivery-receipts/support';
import { openPayments } from '#test/integration/payments/support';

logger.setLogLevel('SILENT');

const table = openLocalTable();
const payments = openPayments();
const receiptsOpen = openReceipts();
const principalOf = () => ({ tenantId: freshTenantId(), websiteId: 1, userId: 3 });

/** Puts the tenant's sequence back to 0, as if its item were lost, behind the items it numbered. */
const loseSequence = (tenantId: number, name: string) => table.client.send(new DeleteCommand({ TableName: table.tableName, Key: sequenceKey(tenantId, name) }));
const sequenceValue = async (tenantId: number, name: string) =>
  (await table.client.send(new GetCommand({ TableName: table.tableName, Key: sequenceKey(tenantId, name), ConsistentRead: true }))).Item?.value;

/** The tenant's items but its sequences (their values move), to prove the items created before are as they were. */
const itemsBut = async (context: TableContext, tenantId: number) =>
  (await tenantItems(context, tenantId)).filter((item) => !String(item.sk).startsWith('SEQ#'));

describe('a create whose ID is in use', () => {
  it('tenant locations: steps past the locations stored, and the sequence stays past them', async () => {
    const service = createTenantLocationService({ repository: createTenantLocationRepository(table) });
    const principal = principalOf();
    for (const name of ['One', 'Two', 'Three']) await service.save(principal, { Name: name });
    await loseSequence(principal.tenantId, locationSequence);
    const before = await itemsBut(table, principal.tenantId);

    const { location } = await service.save(principal, { Name: 'Four' });
    expect(location.ID).toBe(4);
    expect((await service.save(principal, { Name: 'Five' })).location.ID).toBe(5);
    expect(await sequenceValue(principal.tenantId, locationSequence)).toBe(5);
    const after = await itemsBut(table, principal.tenantId);
    for (const item of before) expect(after).toContainEqual(item);
    expect((await service.getAll(principal)).map(({ ID, Name }) => `${ID} ${Name}`)).toEqual(['5 Five', '4 Four', '1 One', '3 Three', '2 Two']);
  });

  it('tenant locations: a create under a parent whose ID it takes steps past it (one transaction cannot name an item twice)', async () => {
    const service = createTenantLocationService({ repository: createTenantLocationRepository(table) });
    const principal = principalOf();
    const top = (await service.save(principal, { Name: 'Top' })).location;
    const middle = (await service.save(principal, { Name: 'Middle', ParentID: top.ID })).location;
    await loseSequence(principal.tenantId, locationSequence);

    // IDs 1 and 2 are the new location's own parent chain: each would be a Put and a ConditionCheck of one item.
    const { location } = await service.save(principal, { Name: 'Bottom', ParentID: middle.ID });
    expect([location.ID, location.ParentID]).toEqual([3, middle.ID]);
  });

  it('tenant locations: a name taken still gives back the value it took (only a value in use is kept)', async () => {
    const service = createTenantLocationService({ repository: createTenantLocationRepository(table) });
    const principal = principalOf();
    for (const name of ['One', 'Two']) await service.save(principal, { Name: name });
    await loseSequence(principal.tenantId, locationSequence);
    await expect(service.save(principal, { Name: 'One' })).rejects.toMatchObject({ status: 409 });
    // 1 and 2 were in use (stepped past, kept); 3 was refused for the name and given back.
    expect(await sequenceValue(principal.tenantId, locationSequence)).toBe(2);
    expect((await service.save(principal, { Name: 'Three' })).location.ID).toBe(3);
  });

  it('payments: a payment and a refund step past the payments stored', async () => {
    const { service } = payments;
    const principal = principalOf();
    const first = (await service.record(principal, { Object: { Amount: 10 } })).payment as { ID: number };
    await service.record(principal, { Object: { Amount: 20 } });
    await service.record(principal, { Object: { Amount: 30 } });
    await loseSequence(principal.tenantId, paymentSequence);
    const before = await itemsBut(table, principal.tenantId);

    const fourth = (await service.record(principal, { Object: { Amount: 40 } })).payment;
    expect(fourth.ID).toBe(4);
    await loseSequence(principal.tenantId, paymentSequence);
    // ID 1 is the refunded payment's own: one transaction cannot update it and put the refund there (DynamoDB refuses
    // that outright on AWS), so it is stepped past before anything is sent, as 2, 3 and 4 are on their conditions.
    const refund = (await service.refund(principal, first.ID, { Object: { Amount: 5 } })).payment;
    expect(refund.ID).toBe(5);
    expect((await service.get(principal, first.ID)).Refunds?.map(({ ID }) => ID)).toEqual([5]);
    for (const id of [2, 3]) expect((await service.get(principal, id)).Amount).toBe(id * 10);
    const after = await tenantItems(table, principal.tenantId);
    for (const item of before.filter((stored) => stored.ID !== first.ID)) expect(after).toContainEqual(item);
  });

  it('delivery receipts: a create in one transaction and a create in chunks step past the receipts stored', async () => {
    const { service, table: receipts } = receiptsOpen;
    const principal = principalOf();
    for (let count = 0; count < 3; count += 1) await service.save(principal, { Value: { Lines: linesOf(1) } });
    await loseSequence(principal.tenantId, receiptSequence);
    const before = await itemsBut(receipts, principal.tenantId);

    expect((await service.save(principal, { Value: { Lines: linesOf(2) } })).receipt.ID).toBe(4);
    await loseSequence(principal.tenantId, receiptSequence);
    // More lines than one transaction holds: written in chunks, the first of which finds the header there.
    expect((await service.save(principal, { Value: { Lines: linesOf(150) } })).receipt.ID).toBe(5);
    const after = await itemsBut(receipts, principal.tenantId);
    for (const item of before) expect(after).toContainEqual(item);
  });

  it('scheduled tasks: steps past the tasks stored, its credentials sealed on the attempt that keeps its ID', async () => {
    const cipher = localSecretCipher(randomBytes(32));
    const service = createScheduledTaskService({
      repository: createScheduledTaskRepository(table),
      cipher,
      syncSchedule: async () => 'Enabled',
      requestSync: async () => undefined,
      latestRuns: async () => [],
    });
    const principal = principalOf();
    const task = (name: string) => ({ Name: name, TaskTypeID: 7, IsRecurringSchedule: true, Interval: 15, IntervalType: 1, TimeOfDay: '2099-03-02T09:00:00Z' });
    for (const name of ['One', 'Two', 'Three']) await service.save(principal, task(name));
    await loseSequence(principal.tenantId, taskSequence);
    const before = await itemsBut(table, principal.tenantId);

    const saved = await service.save(principal, { ...task('Four'), AdaptorDetails: { Name: 'Ledger', TokenDetails: { Provider: 'Xero', TokenSecret: 'ts-secret-value' } } });
    expect(saved.task.ID).toBe(4);
    expect((await service.get(principal, 4)).AdaptorDetails?.TokenDetails).toMatchObject({ Provider: 'Xero' });
    // Sealed again on the attempt that kept ID 4: stored as ciphertext only.
    expect(JSON.stringify(await table.client.send(new GetCommand({ TableName: table.tableName, Key: taskKey(principal.tenantId, 4), ConsistentRead: true })))).not.toContain('ts-secret-value');
    expect(await sequenceValue(principal.tenantId, taskSequence)).toBe(4);
    const after = await itemsBut(table, principal.tenantId);
    for (const item of before) expect(after).toContainEqual(item);
  });
});
