// Unit: the local KMS emulation through the SDK's own client: data keys and ciphertexts bound to their encryption
// context (AES-256-GCM, the context as additional authenticated data), keys by id, ARN or alias, KMS's errors.
import { DecryptCommand, EncryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { kmsKeyArn, startKmsEmulation, type RunningKms } from '#infra/local/kms';

const keyId = '00000000-0000-4000-8000-00000000000a';
const lines: string[] = [];
let kms: RunningKms;
let client: KMSClient;

beforeAll(async () => {
  kms = await startKmsEmulation({ keys: [{ keyId, source: 'test key', policy: [], aliases: ['alias/test'] }], log: (line) => lines.push(line) });
  client = new KMSClient({ endpoint: kms.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
});
afterAll(async () => {
  client.destroy();
  await kms.close();
});

const context = { tenant: '1', task: '2', field: 'TokenSecret' };

describe('the local KMS', () => {
  it('generates a data key whose ciphertext opens only under the same context, in any order', async () => {
    const generated = await client.send(new GenerateDataKeyCommand({ KeyId: kmsKeyArn(keyId), KeySpec: 'AES_256', EncryptionContext: context }));
    expect(generated.KeyId).toBe(kmsKeyArn(keyId));
    expect(generated.Plaintext).toHaveLength(32);
    const reordered = { field: 'TokenSecret', task: '2', tenant: '1' };
    const opened = await client.send(new DecryptCommand({ CiphertextBlob: generated.CiphertextBlob, EncryptionContext: reordered }));
    expect(Buffer.from(opened.Plaintext!)).toEqual(Buffer.from(generated.Plaintext!));
    for (const other of [{ ...context, tenant: '3' }, {}, { ...context, extra: 'x' }]) {
      await expect(client.send(new DecryptCommand({ CiphertextBlob: generated.CiphertextBlob, EncryptionContext: other }))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    }
    const tampered = Buffer.from(generated.CiphertextBlob!);
    tampered[tampered.length - 1]! ^= 1;
    await expect(client.send(new DecryptCommand({ CiphertextBlob: tampered, EncryptionContext: context }))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  });

  it('names a key by id, ARN or alias, and refuses an unknown one', async () => {
    const sealed = await client.send(new EncryptCommand({ KeyId: 'alias/test', Plaintext: Buffer.from('x') }));
    expect(sealed.KeyId).toBe(kmsKeyArn(keyId));
    const opened = await client.send(new DecryptCommand({ CiphertextBlob: sealed.CiphertextBlob, KeyId: keyId }));
    expect(Buffer.from(opened.Plaintext!).toString()).toBe('x');
    expect(kms.keyArnOf('alias/test')).toBe(kmsKeyArn(keyId));
    await expect(client.send(new GenerateDataKeyCommand({ KeyId: 'alias/nope', NumberOfBytes: 32 }))).rejects.toMatchObject({ name: 'NotFoundException' });
    await expect(client.send(new DecryptCommand({ CiphertextBlob: Buffer.from('not a blob of ours') }))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  });

  it('logs nothing of what it serves', () => {
    expect(lines).toEqual([]);
  });
});
