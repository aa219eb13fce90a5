// E2E: secret fields are sealed through the local KMS, which holds the template's key with its key policy, and the
// IAM edge enforces both the key policy and the caller's role policies, as AWS does for a same-account key.
// 1. On the shared stack: a save that seals a credential of up to 4 KiB stores KMS's own ciphertext blob (`kms:`
//    and base64: one Encrypt under the encryption context); a longer one stores an ESDK message whose one data key
//    KMS wrapped (provider `aws-kms`, the template's key ARN). Each opens here with the admin key under its context
//    and not under another, and neither the credential nor the data key appears in any other table item or log line.
// 2. On the throwaway assembly (test/support/throwaway-assembly.ts, shared with template-iam) whose CDK Aspects remove
//    kms:Encrypt from the save function's role policy and replace one gateway response's template (the manifest and
//    the shared definitions unchanged): the save fails as on AWS (5xx, an explained AccessDeniedException in the
//    log) and changes nothing; the local gateway answers an unknown path with the replaced template, so it reads the
//    template, not the shared definitions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DecryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { requestIdHeader } from '#shared/http/headers';
import { readStackLog } from '#test/support/document-events-http';
import { tokenFor } from '#test/support/http';
import { lineWith, logOnceItHolds, spawnLocalStack, type LocalStackProcess } from '#test/support/local-stack-process';
import { freshTenantId } from '#test/support/tenant-items';
import { scanAll } from '#test/support/table-scan';
import { throwawayAssembly } from '#test/support/throwaway-assembly';
import { openTable, quarterHourly, saveTask } from '#test/e2e/scheduled-tasks/support';

const synthTimeoutMs = 15 * 60_000;
const credential = { Name: 'Ledger', TokenDetails: { Provider: 'Xero', OrgName: 'Acme', TokenSecret: 'ts-kms-e2e-secret' } };

/** The header of an ESDK message (format version 2): its encryption context and its encrypted data keys. */
const esdkHeader = (message: Buffer) => {
  let offset = 1 + 2 + 32; // version, algorithm suite, message id
  const u16 = () => {
    const value = message.readUInt16BE(offset);
    offset += 2;
    return value;
  };
  const bytes = () => {
    const length = u16();
    const value = message.subarray(offset, offset + length);
    offset += length;
    return value;
  };
  const context: Record<string, string> = {};
  if (u16() > 0) {
    for (let pairs = u16(); pairs > 0; pairs -= 1) context[bytes().toString('utf8')] = bytes().toString('utf8');
  }
  const dataKeys = [];
  for (let count = u16(); count > 0; count -= 1) {
    dataKeys.push({ providerId: bytes().toString('utf8'), providerInfo: bytes().toString('utf8'), ciphertext: Buffer.from(bytes()) });
  }
  return { version: message[0], context, dataKeys };
};

/** The base64 ESDK messages in items: version 2, suite 0x0478 (committing AES-256-GCM, no signature) begin `AgR4`. */
const sealedMessages = (value: unknown): string[] =>
  JSON.stringify(value).match(/AgR4[A-Za-z0-9+/]{40,}={0,2}/g) ?? [];

describe('the shared stack seals through the local KMS', () => {
  const table = openTable();
  afterAll(() => table.close());

  /** The run's stack log, once what the last request logged is in it. */
  /** This run's stack log once it holds the line of the save that answered (lines arrive after their answers). */
  const stackLogAfter = async (answer: { readonly headers: Headers }) => (await readStackLog([answer.headers.get(requestIdHeader)!])).text;

  it('seals a credential of up to 4 KiB with one KMS Encrypt under its context: the blob opens only under that context', async () => {
    const tenant = freshTenantId();
    const token = await tokenFor({ tenant });
    const saved = await saveTask(token, { ...quarterHourly, AdaptorDetails: credential });
    expect(saved.status).toBe(201);
    const task = saved.json.Value.ID;

    const items = JSON.stringify(await table.tenantItems(tenant));
    const blobs = items.match(/"kms:[A-Za-z0-9+/]+={0,2}"/g) ?? [];
    expect(blobs).toHaveLength(1);
    expect(sealedMessages(items)).toEqual([]);
    const blob = Buffer.from(blobs[0]!.slice('"kms:'.length, -1), 'base64');
    const context = { tenant: String(tenant), task: String(task), field: 'TokenDetails/TokenSecret' };

    const kms = new KMSClient({});
    try {
      const opened = await kms.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: context }));
      expect(Buffer.from(opened.Plaintext!).toString('utf8')).toBe(credential.TokenDetails.TokenSecret);
      expect(opened.KeyId).toMatch(/^arn:aws:kms:us-east-1:123456789012:key\/[0-9a-f-]{36}$/);
      for (const other of [{ ...context, tenant: '0' }, { ...context, task: '0' }, { ...context, field: 'TokenDetails/TokenKey' }]) {
        await expect(kms.send(new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: other }))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
      }
    } finally {
      kms.destroy();
    }
    expect(JSON.stringify(await table.everyItem())).not.toContain(credential.TokenDetails.TokenSecret);
    expect(await stackLogAfter(saved)).not.toContain(credential.TokenDetails.TokenSecret);
  });

  it('seals a longer credential as an ESDK message: its data key wrapped with the template key reaches no table item and no log line', async () => {
    const tenant = freshTenantId();
    const token = await tokenFor({ tenant });
    // Over KMS Encrypt's 4,096 bytes of plaintext, within the schema's 8 KiB of text.
    const longSecret = `ts-kms-e2e-${'x'.repeat(5_000)}`;
    const saved = await saveTask(token, { ...quarterHourly, AdaptorDetails: { ...credential, TokenDetails: { ...credential.TokenDetails, TokenSecret: longSecret } } });
    expect(saved.status).toBe(201);

    const [sealed] = sealedMessages(await table.tenantItems(tenant));
    expect(sealed).toBeDefined();
    const header = esdkHeader(Buffer.from(sealed!, 'base64'));
    expect(header.version).toBe(2);
    expect(header.context).toEqual({ tenant: String(tenant), task: expect.any(String), field: expect.any(String) });
    expect(header.dataKeys).toHaveLength(1);
    const [dataKey] = header.dataKeys;
    expect(dataKey!.providerId).toBe('aws-kms');
    expect(dataKey!.providerInfo).toMatch(/^arn:aws:kms:us-east-1:123456789012:key\/[0-9a-f-]{36}$/);

    // Unwrapped here with the admin key (the test environment's AWS_ENDPOINT_URL_KMS is the emulation itself), under
    // the message's context; another context does not open it.
    const kms = new KMSClient({});
    try {
      const opened = await kms.send(new DecryptCommand({ CiphertextBlob: dataKey!.ciphertext, EncryptionContext: header.context }));
      const plaintextKey = Buffer.from(opened.Plaintext!);
      expect(plaintextKey).toHaveLength(32);
      await expect(kms.send(new DecryptCommand({ CiphertextBlob: dataKey!.ciphertext, EncryptionContext: { ...header.context, tenant: '0' } }))).rejects.toMatchObject({
        name: 'InvalidCiphertextException',
      });

      const forms = [plaintextKey.toString('base64'), plaintextKey.toString('hex'), plaintextKey.toString('base64url'), longSecret];
      const items = JSON.stringify(await table.everyItem());
      for (const form of forms) expect(items.includes(form)).toBe(false);
      const log = await stackLogAfter(saved);
      for (const form of forms) expect(log.includes(form)).toBe(false);
    } finally {
      kms.destroy();
    }
  });
});

describe('a role policy without kms:Encrypt, a gateway response template replaced', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'template-kms-'));
  const logFile = join(workDir, 'stack.log');
  let stack: LocalStackProcess | undefined;

  beforeAll(async () => {
    stack = await spawnLocalStack({ assemblyDir: await throwawayAssembly(), logFile });
  }, synthTimeoutMs);

  afterAll(async () => {
    await stack?.stop();
    rmSync(workDir, { recursive: true, force: true });
  });

  const everyItem = async () => {
    const client = new DynamoDBClient({ endpoint: stack!.ready.dynamodbEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    try {
      const items = await scanAll(DynamoDBDocumentClient.from(client), { TableName: stack!.ready.tableName });
      // A set (a sequence's gaps) as its sorted members: JSON.stringify writes any Set as {}.
      const text = (item: Record<string, unknown>) => JSON.stringify(item, (_name, value: unknown) => (value instanceof Set ? [...(value as Set<unknown>)].map(String).sort() : value));
      return items.map(text).sort();
    } finally {
      client.destroy();
    }
  };

  it('answers an unknown path with the template\'s gateway response, not the shared one', async () => {
    const response = await fetch(`${stack!.ready.baseUrl}/No/Such/Operation`);
    const requestId = response.headers.get('x-request-id');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ replacedByTheTemplate: true, instance: requestId });
  });

  it('refuses the seal as AWS would, explained in the log, changing nothing', async () => {
    const token = await tokenFor({ tenant: 7_150_002 });
    const before = await everyItem();
    const refused = await fetch(`${stack!.ready.baseUrl}/ScheduledTasks`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...quarterHourly, AdaptorDetails: credential }),
    });
    expect(refused.status).toBeGreaterThanOrEqual(500);
    expect(await refused.text()).not.toContain(credential.TokenDetails.TokenSecret);
    expect(await everyItem()).toEqual(before);

    const log = await logOnceItHolds(logFile, (text) => lineWith(text, 'AccessDeniedException', 'kms:Encrypt') !== undefined, 'the kms:Encrypt refusal');
    const refusal = lineWith(log, 'AccessDeniedException', 'kms:Encrypt');
    expect(refusal).toContain('scheduledTaskSave may not kms:Encrypt on arn:aws:kms:us-east-1:123456789012:key/');
    expect(refusal).toContain('the key policy delegates to it');
    expect(refusal).toContain('"Effect":"Allow","Action":"kms:Encrypt"');
    expect(log).not.toContain(credential.TokenDetails.TokenSecret);
  });
});
