// End to end: adaptor credentials are encrypted at rest and never returned or logged. Tasks carrying every secret
// field (TokenDetails' seven credentials and a secret-looking instruction) are saved in each media type that carries
// AdaptorDetails, read back, updated without them and with one cleared; then the whole table and every log line of
// this run are scanned: no plaintext anywhere, and the answers show only Has<Field> flags.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { requestIdHeader } from '#shared/http/headers';
import { tokenFor } from '#test/support/http';
import { readStackLog } from '#test/support/document-events-http';
import { freshTenantId } from '#test/support/tenant-items';
import { getTask, openTable, quarterHourly, saveTask } from './support';

const table = openTable();
let token: string;

beforeAll(async () => {
  token = await tokenFor({ tenant: freshTenantId() });
});
afterAll(() => table.close());

const secrets = {
  TokenKey: `tk-e2e-${randomUUID()}`,
  TokenSecret: `ts-e2e-${randomUUID()}`,
  ConsumerKey: `ck-e2e-${randomUUID()}`,
  ConsumerSecret: `cs-e2e-${randomUUID()}`,
  Session: `sess-e2e-${randomUUID()}`,
  Verifier: `ver-e2e-${randomUUID()}`,
  Username: `user-e2e-${randomUUID()}@example.com`,
};
const apiPassword = `pw-e2e-${randomUUID()}`;
const plaintexts = [...Object.values(secrets), apiPassword];

const adaptor = {
  Name: 'Ledger',
  TokenDetails: { Provider: 'Xero', OrgName: 'Acme', ...secrets },
  Instructions: [
    { KeyName: 'ApiPassword', Value: apiPassword },
    { KeyName: 'BatchSize', Value: '50' },
  ],
};
const flags = { HasTokenKey: true, HasTokenSecret: true, HasConsumerKey: true, HasConsumerSecret: true, HasSession: true, HasVerifier: true, HasUsername: true };

it('keeps no plaintext credential in any answer, table item or log line', async () => {
  /** The request IDs of the last answers (a task saved, a task read): their log lines come last. */
  const lastAnswers: string[] = [];
  for (const type of ['application/json', 'text/json', 'application/x-www-form-urlencoded'] as const) {
    const saved = await saveTask(token, { ...quarterHourly, AdaptorDetails: adaptor }, { type });
    expect(saved.status).toBe(201);
    expect(saved.json.Value.AdaptorDetails).toEqual({
      Name: 'Ledger',
      TokenDetails: { Provider: 'Xero', OrgName: 'Acme', ...flags },
      Instructions: [{ KeyName: 'ApiPassword', HasValue: true }, { KeyName: 'BatchSize', Value: '50' }],
    });
    const id = saved.json.Value.ID as number;

    // Sending the fetched task back (flags and all) keeps every secret; "" clears one.
    const fetched = await getTask(token, id);
    const { Runs: _runs, ...task } = fetched.json.Value;
    const kept = await saveTask(token, task as Parameters<typeof saveTask>[1]);
    expect(kept.status).toBe(200);
    expect(kept.json.Value.AdaptorDetails).toEqual(saved.json.Value.AdaptorDetails);
    const cleared = await saveTask(token, { ID: id, AdaptorDetails: { TokenDetails: { Session: '' } } }, { type });
    expect(cleared.status).toBe(200);
    const { HasSession: _session, ...remaining } = flags;
    expect(cleared.json.Value.AdaptorDetails?.TokenDetails).toEqual({ Provider: 'Xero', OrgName: 'Acme', ...remaining });

    const asXml = await getTask(token, id, 'application/xml');
    lastAnswers.splice(0, lastAnswers.length, cleared.headers.get(requestIdHeader)!, asXml.headers.get(requestIdHeader)!);
    for (const text of [saved.text, fetched.text, kept.text, cleared.text, asXml.text]) {
      for (const secret of plaintexts) expect(text).not.toContain(secret);
    }
  }

  const items = await table.everyItem();
  for (const secret of plaintexts) {
    expect(items.filter((item) => JSON.stringify(item).includes(secret)).map((item) => `${String(item.pk)} ${String(item.sk)}`)).toEqual([]);
  }

  // Log lines reach the stack's log a little after their answers: wait for the last requests' lines.
  const lines = (await readStackLog(lastAnswers)).text.split('\n');
  expect(lines.some((line) => line.includes('"operationId":"scheduledTaskSave"'))).toBe(true);
  for (const secret of plaintexts) expect(lines.filter((line) => line.includes(secret))).toEqual([]);
});
