// Unit tests of envelope encryption: round trips with the local AES keyring and with the KMS keyring (against a fake
// KMS client that enforces the encryption context as KMS does), refusals of a wrong context, a tampered or foreign
// ciphertext, and configuration errors.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { kmsSecretCipher, localSecretCipher, secretCipher } from '#shared/crypto/envelope';
import { SecretKeyConfigurationError } from '#shared/crypto/secret-cipher';
import { otherContexts, refusal, sealingContext as context } from '#test/support/secrets';
import { readFunctionEnvironment } from '#shared/environment';
import { grantVariables } from '#shared/operations/environment';

const plaintext = 'oauth-token-secret-7f3a9c-ÄÖÜ-🔑';
const cipher = localSecretCipher(randomBytes(32));

const flipByte = (sealed: string, at: number) => {
  const bytes = Buffer.from(sealed, 'base64');
  bytes[at] = bytes[at]! ^ 0x01;
  return bytes.toString('base64');
};


describe('local keyring', () => {
  it('round-trips a secret under its context', async () => {
    const sealed = await cipher.seal(plaintext, context);
    await expect(cipher.open(sealed, context)).resolves.toBe(plaintext);
  });

  it('never holds the plaintext in the ciphertext, and seals the same secret differently each time', async () => {
    const first = await cipher.seal(plaintext, context);
    const second = await cipher.seal(plaintext, context);
    expect(first).not.toBe(second);
    expect(first).not.toContain(plaintext);
    expect(Buffer.from(first, 'base64').includes(Buffer.from(plaintext, 'utf8'))).toBe(false);
  });

  it.each(otherContexts)('refuses to open under %s', async (_, other) => {
    const sealed = await cipher.seal(plaintext, context);
    const error = await refusal(cipher.open(sealed, other));
    expect(error.message).toBe('The secret could not be decrypted: sealed for another owner or field.');
  });

  it('refuses a ciphertext tampered with anywhere: header, data key, body or tag', async () => {
    const sealed = await cipher.seal(plaintext, context);
    const length = Buffer.from(sealed, 'base64').length;
    for (const at of [1, 40, 120, length - 40, length - 1]) {
      const error = await refusal(cipher.open(flipByte(sealed, at), context));
      expect(error.message).not.toContain(plaintext);
    }
  });

  it('refuses a ciphertext sealed with another key, and text that is no ciphertext', async () => {
    const foreign = await localSecretCipher(randomBytes(32)).seal(plaintext, context);
    await refusal(cipher.open(foreign, context));
    await refusal(cipher.open('not base64!', context));
    await refusal(cipher.open(Buffer.from('hello').toString('base64'), context));
    await refusal(cipher.open('', context));
  });

  it('keeps the plaintext and the ciphertext out of every refusal message', async () => {
    const sealed = await cipher.seal(plaintext, context);
    const errors = [
      await refusal(cipher.open(sealed, { ...context, task: '1' })),
      await refusal(cipher.open(flipByte(sealed, 60), context)),
    ];
    for (const error of errors) {
      const text = `${error.message} ${error.stack ?? ''} ${JSON.stringify(error)}`;
      expect(text).not.toContain(plaintext);
      expect(text).not.toContain(sealed.slice(0, 40));
      expect(text).not.toContain('TokenSecret');
    }
  });
});

/** A stand-in for KMS: data keys wrapped under a handle, opened only with the KeyId and context they were made with. */
const fakeKms = (keyArn: string) => {
  /** KMS compares contexts as maps: the order of the pairs does not matter (the ESDK sends them sorted on decrypt). */
  const canonical = (context: Record<string, string> = {}) => JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : 1)));
  const issued = new Map<string, { plaintext: Uint8Array; context: string }>();
  const calls: { operation: string; KeyId?: string; EncryptionContext?: Record<string, string> }[] = [];
  const client = {
    async generateDataKey(request: { KeyId: string; NumberOfBytes?: number; EncryptionContext?: Record<string, string> }) {
      calls.push({ operation: 'GenerateDataKey', KeyId: request.KeyId, EncryptionContext: request.EncryptionContext });
      const plaintext = new Uint8Array(randomBytes(request.NumberOfBytes ?? 32));
      const handle = randomBytes(48);
      // Copies: the SDK zeroes the data keys it is given once it has used them.
      issued.set(handle.toString('hex'), { plaintext: plaintext.slice(), context: canonical(request.EncryptionContext) });
      return { KeyId: keyArn, Plaintext: plaintext, CiphertextBlob: new Uint8Array(handle) };
    },
    async decrypt(request: { KeyId?: string; CiphertextBlob: Uint8Array; EncryptionContext?: Record<string, string> }) {
      calls.push({ operation: 'Decrypt', KeyId: request.KeyId, EncryptionContext: request.EncryptionContext });
      const key = issued.get(Buffer.from(request.CiphertextBlob).toString('hex'));
      if (!key || key.context !== canonical(request.EncryptionContext)) throw new Error('InvalidCiphertextException');
      return { KeyId: keyArn, Plaintext: key.plaintext.slice() };
    },
    async encrypt(): Promise<never> {
      throw new Error('not used: one generator key');
    },
  };
  return { client, calls };
};

describe('KMS keyring (the same code path, another keyring)', () => {
  const keyArn = 'arn:aws:kms:ap-southeast-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

  it('asks KMS for each data key under the encryption context, and opens through KMS Decrypt', async () => {
    const { client, calls } = fakeKms(keyArn);
    const kms = kmsSecretCipher(keyArn, () => client as never);
    const sealed = await kms.seal(plaintext, context);
    await expect(kms.open(sealed, context)).resolves.toBe(plaintext);
    expect(calls).toEqual([
      { operation: 'GenerateDataKey', KeyId: keyArn, EncryptionContext: context },
      { operation: 'Decrypt', KeyId: keyArn, EncryptionContext: context },
    ]);
  });

  it('refuses another context before asking KMS anything it would refuse anyway', async () => {
    const { client } = fakeKms(keyArn);
    const kms = kmsSecretCipher(keyArn, () => client as never);
    const sealed = await kms.seal(plaintext, context);
    await refusal(kms.open(sealed, { ...context, tenant: '8' }));
  });

  it('does not open a message of the local keyring', async () => {
    const { client } = fakeKms(keyArn);
    await refusal(kmsSecretCipher(keyArn, () => client as never).open(await cipher.seal(plaintext, context), context));
  });
});

describe('configuration from the environment', () => {
  const localKey = randomBytes(32).toString('base64');

  const sealing = grantVariables.sealSecrets;

  it('takes the KMS key of SECRET_FIELDS_KEY_ARN (the local stack sets it too: its KMS holds the key)', () => {
    const env = { SECRET_FIELDS_KEY_ARN: 'arn:aws:kms:us-east-1:123456789012:key/00000000-0000-4000-8000-000000000001' };
    expect(() => secretCipher(readFunctionEnvironment(sealing, env).SECRET_FIELDS_KEY_ARN as string, () => false)).not.toThrow();
  });

  it.each([
    ['nothing', {}],
    // No raw-key branch any more: the local stack serves KMS, so a raw key alone configures nothing.
    ['only a raw local key', { SECRET_FIELDS_LOCAL_KEY: localKey }],
  ])('fails the function\'s load with %s, naming SECRET_FIELDS_KEY_ARN', (_, env) => {
    expect(() => readFunctionEnvironment(sealing, env)).toThrow('Environment variable SECRET_FIELDS_KEY_ARN must be set (given by sealSecrets)');
  });

  it('fails fast with an alias instead of a key ARN', () => {
    expect(() => secretCipher('arn:aws:kms:us-east-1:123456789012:alias/secrets', () => false)).toThrow(
      new SecretKeyConfigurationError('The secret-fields key must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>).'),
    );
  });
});
