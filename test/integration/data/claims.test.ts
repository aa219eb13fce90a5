// Integration: case-insensitive unique claims (shared/data/claims.ts) against DynamoDB Local, written through the
// transaction helper as an area writes them: together with the owner's record.
import { describe, expect, it } from '@jest/globals';
import { claimChanges, defineClaim, normaliseClaimValue } from '#shared/data/claims';
import { tenantKey } from '#shared/data/partition';
import { transact, transactionActions } from '#shared/data/transaction';
import { versionedPut } from '#shared/data/versioned';
import { NameTaken } from '#shared/errors';
import { failureOf, freshTenantId, openLocalTable, tenantItems } from './support';

const table = openLocalTable();
const widgetName = defineClaim({ prefix: 'WIDGETNAME', entity: 'WidgetName', ownerAttribute: 'WidgetID' });
const errors = { claim: () => new NameTaken() };

/** Creates widget `id` holding `name`: the record and its claim in one transaction. */
const createWidget = (tenantId: number, id: number, name: string) =>
  transact(
    table,
    [
      { role: 'record', item: versionedPut(table.tableName, { ...tenantKey(tenantId, `WIDGET#${id}`), Name: name, Version: 1 }, undefined) },
      { role: 'claim', item: widgetName.claim(table.tableName, tenantId, name, id) },
    ],
    { errors },
  );

describe('normaliseClaimValue', () => {
  it.each([
    ['  Main Office ', 'main office'],
    ['MAIN', 'main'],
    ['Ｍａｉｎ', 'main'],
    ['\tmain\n', 'main'],
    // Invisible characters show nothing: the same value (found by a hostile client: a second "Main Store" was taken).
    ['Main Store\u200b', 'main store'],
    ['Main\u00adStore', 'mainstore'],
    ['\ufeffMain', 'main'],
    // Every dash is one dash: a non-breaking hyphen, an en dash, a minus sign.
    ['DR\u2011000099', 'dr-000099'],
    ['DR\u2013000099', 'dr-000099'],
    ['DR\u2212000099', 'dr-000099'],
    // Case folding, not lower-casing: ß is ss.
    ['Straße', 'strasse'],
    ['STRASSE', 'strasse'],
    // Blank: nothing visible.
    ['\u3164', ''],
    ['\u2800\u200b \u180e', ''],
  ])('%j is %j', (value, expected) => {
    expect(normaliseClaimValue(value)).toBe(expected);
  });
});

describe('claims', () => {
  it('one value per tenant, whatever its case, width and spacing: the second claim is NameTaken and writes nothing', async () => {
    const tenant = freshTenantId();
    await createWidget(tenant, 1, 'Main');

    const refused = await failureOf(createWidget(tenant, 2, ' ＭＡＩＮ '));

    expect({ refused, items: (await tenantItems(table, tenant)).map((item) => item.sk) }).toEqual({
      refused: { name: 'NameTaken', status: 409, detail: 'Another record of this tenant already has this name.' },
      items: ['WIDGET#1', 'WIDGETNAME#main'],
    });
    expect(await widgetName.owner(table, tenant, 'MAIN')).toBe(1);
  });

  it("another tenant's claim of the same value does not count", async () => {
    const [tenant, other] = [freshTenantId(), freshTenantId()];
    await createWidget(other, 1, 'Main');

    await createWidget(tenant, 1, 'Main');

    expect([await widgetName.owner(table, tenant, 'main'), await widgetName.owner(table, other, 'main')]).toEqual([1, 1]);
  });

  it('of 12 concurrent claims of one value in different spellings, exactly one wins', async () => {
    const tenant = freshTenantId();
    const spellings = ['Main', 'main', ' MAIN', 'Main ', 'mAiN', 'MaIn', '\tmain', 'MAIN ', 'Ｍａｉｎ', 'main  ', ' main', 'MAIn'];

    const outcomes = await Promise.allSettled(spellings.map((name, index) => createWidget(tenant, index + 1, name)));

    const winners = outcomes.flatMap((outcome, index) => (outcome.status === 'fulfilled' ? [index + 1] : []));
    const losers = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [(outcome.reason as Error).name] : []));
    expect(winners).toHaveLength(1);
    // A loser either saw the winner's claim (NameTaken) or collided with its transaction in flight (a retryable race).
    expect(losers.every((name) => name === 'NameTaken' || name === 'ConcurrentModification')).toBe(true);
    expect(await widgetName.owner(table, tenant, 'main')).toBe(winners[0]);
  });

  it('releasing needs the owner; a released value can be claimed again', async () => {
    const tenant = freshTenantId();
    await createWidget(tenant, 1, 'Main');

    const notOwner = await failureOf(transact(table, [{ role: 'release', item: widgetName.release(table.tableName, tenant, 'main', 2) }]));
    await transact(table, [{ role: 'release', item: widgetName.release(table.tableName, tenant, ' MAIN ', 1) }]);
    await createWidget(tenant, 2, 'main');

    expect({ notOwner, owner: await widgetName.owner(table, tenant, 'Main') }).toEqual({
      notOwner: { name: 'ConcurrentModification', status: 409, detail: 'The record changed while this request was saving it; retry.' },
      owner: 2,
    });
  });
});

describe('claimChanges', () => {
  it('writes nothing when the value keeps its normal form, and releases then claims when it changes', async () => {
    const tenant = freshTenantId();
    await createWidget(tenant, 1, 'Main');
    const { tableName } = table;

    const recased = claimChanges(widgetName, tableName, tenant, 1, 'Main', ' MAIN ');
    const renamed = claimChanges(widgetName, tableName, tenant, 1, 'Main', 'Depot');
    const { actions, add } = transactionActions<'release' | 'claim'>();
    if (renamed.release) add('release', renamed.release);
    if (renamed.claim) add('claim', renamed.claim);
    await transact(table, actions);

    expect({
      recased,
      dropped: claimChanges(widgetName, tableName, tenant, 1, 'Main', undefined),
      taken: claimChanges(widgetName, tableName, tenant, 1, undefined, 'Main'),
      items: (await tenantItems(table, tenant)).map((item) => item.sk),
    }).toEqual({
      recased: {},
      dropped: { release: widgetName.release(tableName, tenant, 'Main', 1) },
      taken: { claim: widgetName.claim(tableName, tenant, 'Main', 1) },
      items: ['WIDGET#1', 'WIDGETNAME#depot'],
    });
  });
});
