// End to end: the scheduled-task save and get over HTTP through the local gateway. One logical task in each of the
// five request media types (JSON, text/json, XML, text/xml, a form; XML lists IDs as repeated elements) gives the
// same stored task; answers in JSON and XML carry the same task; an update merges (200), a stale Version is 409,
// another tenant's task is 404, and a multipart form is refused (415) without storing anything.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isXml, requestMediaTypes } from '#test/support/bodies';
import { api, tokenFor } from '#test/support/http';
import { parseXmlAs } from '#test/support/responses';
import { freshTenantId } from '#test/support/tenant-items';
import { answerSchema, getTask, openTable, quarterHourly, saveTask, tomorrow } from './support';

const tenant = freshTenantId();
const table = openTable();
let token: string;
let otherToken: string;

beforeAll(async () => {
  token = await tokenFor({ tenant, user: 5 });
  otherToken = await tokenFor({ tenant: freshTenantId() });
});
afterAll(() => table.close());

describe('save and get in every media type', () => {
  it.each(requestMediaTypes)('creates from %s (201, Location) and reads it back in JSON and XML', async (type) => {
    const body = {
      Name: `One-off from ${type}`,
      NameFriendlyName: 'Export & <send> "now"',
      TaskTypeID: 3,
      IsRecurringSchedule: false,
      TimeOfDay: tomorrow(),
      IsEnabled: true,
      DatTypeID: 14,
      IDs: [4, 5, 6],
    };
    const saved = await saveTask(token, body, { type });
    expect(saved.status).toBe(201);
    const id = saved.json.Value.ID as number;
    expect(saved.headers.get('location')).toBe(`/api/ScheduledTasks/${id}`);
    expect(saved.json).toEqual({
      Value: {
        ...body,
        ID: id,
        IsActive: true,
        Status: 'Scheduled',
        NextRunDateTime_utc: new Date(body.TimeOfDay).toISOString(),
        ScheduleState: 'Enabled',
        Version: 1,
        CreatedDateTime_utc: expect.any(String),
        ModifiedDateTime_utc: expect.any(String),
        CreatedByUserID: 5,
        ModifiedByUserID: 5,
      },
      IsSuccess: true,
      Messages: [],
    });

    const read = await getTask(token, id);
    expect(read.status).toBe(200);
    expect(read.json).toEqual({ ...saved.json, Value: { ...saved.json.Value, Runs: [] } });
    for (const accept of ['application/xml', 'text/xml']) {
      const xml = await getTask(token, id, accept);
      expect(xml.status).toBe(200);
      expect(xml.headers.get('content-type')).toBe(`${accept}; charset=utf-8`);
      expect(xml.text).toContain('<IDs>4</IDs><IDs>5</IDs><IDs>6</IDs>');
      // XML cannot tell an empty list from an absent one: the empty Runs is left out.
      expect(parseXmlAs(answerSchema, xml.text)).toEqual(saved.json);
    }
    if (isXml(type)) expect(saved.json.Value).not.toHaveProperty('AdaptorDetails');
  });

  it('answers the save in XML when asked', async () => {
    const saved = await saveTask(token, quarterHourly, { accept: 'application/xml' });
    expect(saved.status).toBe(201);
    expect(saved.text).toMatch(/^<\?xml[^>]*\?><ActionResults_ScheduledTask_/);
    const parsed = parseXmlAs(answerSchema, saved.text);
    expect(parsed.Value).toMatchObject({ ...quarterHourly, Version: 1, ScheduleState: 'Enabled', Status: 'Scheduled' });
  });
});

describe('update', () => {
  it('merges (200): absent keeps, "" clears; a stale Version is 409 and changes nothing', async () => {
    const created = await saveTask(token, { ...quarterHourly, NameFriendlyName: 'Quarter-hourly', DatTypeFriendlyName: 'Invoice' });
    const id = created.json.Value.ID as number;
    const updated = await saveTask(token, { ID: id, Name: 'Export v2', NameFriendlyName: '', Version: 1 }, { type: 'application/x-www-form-urlencoded' });
    expect(updated.status).toBe(200);
    expect(updated.headers.get('location')).toBeNull();
    expect(updated.json.Value).toMatchObject({ ID: id, Name: 'Export v2', DatTypeFriendlyName: 'Invoice', Interval: 15, Version: 2 });
    expect(updated.json.Value).not.toHaveProperty('NameFriendlyName');

    const before = await table.tenantItems(tenant);
    const stale = await saveTask(token, { ID: id, Name: 'Stale', Version: 1 });
    expect(stale.status).toBe(409);
    expect(stale.json).toMatchObject({ type: 'tag:business-platform.api,2026:problems/stale-version', errors: [{ pointer: '/Version', detail: 'stale' }] });
    expect(await table.tenantItems(tenant)).toEqual(before);
  });
});

describe('tenancy and refusals', () => {
  it("answers 404 for another tenant's task, to get and to save, and changes nothing", async () => {
    const created = await saveTask(token, quarterHourly);
    const id = created.json.Value.ID as number;
    const before = await table.tenantItems(tenant);
    const read = await getTask(otherToken, id);
    expect(read.status).toBe(404);
    expect(read.text).not.toContain('Export');
    expect((await saveTask(otherToken, { ...quarterHourly, ID: id, Name: 'Hijack' })).status).toBe(404);
    expect((await getTask(token, 2_000_000_000)).status).toBe(404);
    expect(await table.tenantItems(tenant)).toEqual(before);
  });

  it('refuses a multipart form (415: not a media type the API reads) and stores nothing', async () => {
    const fresh = freshTenantId();
    const freshToken = await tokenFor({ tenant: fresh });
    const boundary = '----e2e-boundary';
    const body = [`--${boundary}`, 'Content-Disposition: form-data; name="Name"', '', 'Multipart', `--${boundary}--`, ''].join('\r\n');
    const response = await api('/ScheduledTasks/', { method: 'POST', token: freshToken, body, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });
    expect(response.status).toBe(415);
    expect(response.headers.get('accept-post')).toContain('application/x-www-form-urlencoded');
    expect(await table.tenantItems(fresh)).toEqual([]);
  });
});

it('keeps nothing of the tenants it read outside the partitions their Queries read (one Scan)', () => table.expectNothingElsewhere());
