// Unit tests of the secret-fields cipher (shared/crypto/secret-cipher.ts): a secret of up to 4,096 bytes is sealed
// by one KMS Encrypt under its context and opened by one Decrypt naming the key; a longer one, and every secret
// sealed before (an ESDK message), goes to the Encryption SDK's cipher, loaded only then. KMS is a fake here that
// binds the context as KMS does (the real path runs against the local KMS in test/e2e/platform/template-kms.test.ts).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it, jest } from '@jest/globals';
import { directPlaintextLimit, secretFieldsCipher, SecretKeyConfigurationError, type DirectKmsCalls, type SecretCipher } from '#shared/crypto/secret-cipher';
import { otherContexts, refusal, sealingContext as context } from '#test/support/secrets';

const keyArn = 'arn:aws:kms:ap-southeast-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
const otherKeyArn = 'arn:aws:kms:ap-southeast-2:123456789012:key/99999999-12ab-34cd-56ef-1234567890ab';
const plaintext = 'oauth-token-secret-7f3a9c-ÄÖÜ-🔑';

const kmsError = (name: string) => Object.assign(new Error(`${name} from KMS`), { name });

/** A stand-in for KMS: AES-256-GCM under one key per ARN, the context as additional data, the key's ARN in the blob. */
const fakeKms = () => {
  const keys = new Map([keyArn, otherKeyArn].map((arn) => [arn, randomBytes(32)]));
  const aad = (encryptionContext: Record<string, string>) => Buffer.from(JSON.stringify(Object.entries(encryptionContext).sort(([a], [b]) => (a < b ? -1 : 1))));
  const calls: { operation: string; KeyId: string; EncryptionContext: Record<string, string> }[] = [];
  const kms: DirectKmsCalls = {
    async encrypt({ KeyId, Plaintext, EncryptionContext }) {
      calls.push({ operation: 'Encrypt', KeyId, EncryptionContext });
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keys.get(KeyId)!, iv).setAAD(aad(EncryptionContext));
      const sealed = Buffer.concat([cipher.update(Plaintext), cipher.final()]);
      return { CiphertextBlob: new Uint8Array(Buffer.concat([Buffer.from([[...keys.keys()].indexOf(KeyId)]), iv, cipher.getAuthTag(), sealed])) };
    },
    async decrypt({ KeyId, CiphertextBlob, EncryptionContext }) {
      calls.push({ operation: 'Decrypt', KeyId, EncryptionContext });
      const blob = Buffer.from(CiphertextBlob);
      const blobKey = [...keys.keys()][blob[0]!];
      if (blobKey === undefined || blob.length < 29) throw kmsError('InvalidCiphertextException');
      if (blobKey !== KeyId) throw kmsError('IncorrectKeyException');
      try {
        const decipher = createDecipheriv('aes-256-gcm', keys.get(KeyId)!, blob.subarray(1, 13)).setAAD(aad(EncryptionContext));
        decipher.setAuthTag(blob.subarray(13, 29));
        return { Plaintext: new Uint8Array(Buffer.concat([decipher.update(blob.subarray(29)), decipher.final()])) };
      } catch {
        throw kmsError('InvalidCiphertextException');
      }
    },
  };
  return { kms, calls };
};

/** The Encryption SDK's side as a recording fake: what it seals is marked, so the tests see which path ran. */
const fakeEnvelope = () => {
  const loads = jest.fn<() => void>();
  const envelope: SecretCipher = {
    seal: async (secret) => `ESDK(${Buffer.from(secret).toString('base64')})`,
    open: async (sealed) => {
      const match = /^ESDK\((.*)\)$/.exec(sealed);
      if (!match) {
        // The chunk's own copy of the class: same name and reason, another constructor.
        throw Object.assign(new Error('The secret could not be decrypted: not a sealed secret.'), { name: 'SecretNotOpened', reason: 'not a sealed secret' });
      }
      return Buffer.from(match[1]!, 'base64').toString('utf8');
    },
  };
  return {
    loads,
    load: async () => {
      loads();
      return envelope;
    },
  };
};

const setUp = () => {
  const { kms, calls } = fakeKms();
  const envelope = fakeEnvelope();
  return { cipher: secretFieldsCipher({ keyArn, kms, envelope: envelope.load }), kms, calls, envelope };
};


describe('a secret of up to 4 KiB', () => {
  it('is sealed by one KMS Encrypt naming the key and the context, and opened by one Decrypt naming both', async () => {
    const { cipher, calls, envelope } = setUp();
    const sealed = await cipher.seal(plaintext, context);
    expect(sealed).toMatch(/^kms:[A-Za-z0-9+/]+={0,2}$/);
    expect(sealed).not.toContain(plaintext);
    await expect(cipher.open(sealed, context)).resolves.toBe(plaintext);
    expect(calls).toEqual([
      { operation: 'Encrypt', KeyId: keyArn, EncryptionContext: context },
      { operation: 'Decrypt', KeyId: keyArn, EncryptionContext: context },
    ]);
    expect(envelope.loads).not.toHaveBeenCalled();
  });

  it('counts bytes of UTF-8, not characters: 4,096 bytes go to KMS, 4,097 to the Encryption SDK', async () => {
    const { cipher, envelope } = setUp();
    const atLimit = 'a'.repeat(directPlaintextLimit - 3) + '€';
    expect(Buffer.byteLength(atLimit)).toBe(directPlaintextLimit);
    expect(await cipher.seal(atLimit, context)).toMatch(/^kms:/);
    expect(envelope.loads).not.toHaveBeenCalled();

    // 1,366 characters, 4,098 bytes.
    const over = '€'.repeat(1366);
    const sealed = await cipher.seal(over, context);
    expect(sealed).toMatch(/^ESDK\(/);
    expect(envelope.loads).toHaveBeenCalledTimes(1);
    await expect(cipher.open(sealed, context)).resolves.toBe(over);
  });

  it.each(otherContexts)('is refused under %s (KMS binds the context)', async (_, other) => {
    const { cipher } = setUp();
    const sealed = await cipher.seal(plaintext, context);
    const error = await refusal(cipher.open(sealed, other));
    expect(error.message).toBe('The secret could not be decrypted: damaged, sealed with another key, or sealed for another owner or field.');
  });

  it('is refused when damaged, when sealed with another key, and when it is no sealed secret (the last without asking KMS)', async () => {
    const { cipher, kms, calls } = setUp();
    const sealed = await cipher.seal(plaintext, context);
    const blob = Buffer.from(sealed.slice(4), 'base64');
    blob.writeUInt8(blob.readUInt8(blob.length - 1) ^ 1, blob.length - 1);
    await refusal(cipher.open(`kms:${blob.toString('base64')}`, context));

    const foreign = secretFieldsCipher({ keyArn: otherKeyArn, kms, envelope: fakeEnvelope().load });
    await refusal(cipher.open(await foreign.seal(plaintext, context), context));

    const before = calls.length;
    for (const text of ['kms:', 'kms:not base64!', 'kms:QUJD\n']) {
      expect((await refusal(cipher.open(text, context))).reason).toBe('not a sealed secret');
    }
    expect(calls).toHaveLength(before);
  });

  it('refuses a plaintext that is not UTF-8 instead of answering replacement characters', async () => {
    const { kms } = fakeKms();
    const raw = secretFieldsCipher({ keyArn, kms, envelope: fakeEnvelope().load });
    const { CiphertextBlob } = await kms.encrypt({ KeyId: keyArn, Plaintext: new Uint8Array([0x63, 0x61, 0x66, 0xe9]), EncryptionContext: { ...context } });
    const error = await refusal(raw.open(`kms:${Buffer.from(CiphertextBlob!).toString('base64')}`, context));
    expect(error.reason).toBe('not a sealed secret');
  });

  it('keeps the plaintext, the ciphertext and the context out of every refusal', async () => {
    const { cipher } = setUp();
    const sealed = await cipher.seal(plaintext, context);
    const error = await refusal(cipher.open(sealed, { ...context, task: '1' }));
    const text = `${error.message} ${error.stack ?? ''} ${JSON.stringify(error)}`;
    for (const secret of [plaintext, sealed.slice(4, 44), 'TokenSecret']) expect(text).not.toContain(secret);
  });

  it('lets a KMS failure that is no refusal through as it is: the dependency is down, the secret is not damaged', async () => {
    const { kms } = fakeKms();
    const throttled: DirectKmsCalls = { encrypt: kms.encrypt, decrypt: async () => Promise.reject(kmsError('ThrottlingException')) };
    const cipher = secretFieldsCipher({ keyArn, kms: throttled, envelope: fakeEnvelope().load });
    const sealed = await cipher.seal(plaintext, context);
    await expect(cipher.open(sealed, context)).rejects.toMatchObject({ name: 'ThrottlingException' });
    const failing = secretFieldsCipher({ keyArn, kms: { encrypt: async () => Promise.reject(kmsError('AccessDeniedException')), decrypt: kms.decrypt }, envelope: fakeEnvelope().load });
    await expect(failing.seal(plaintext, context)).rejects.toMatchObject({ name: 'AccessDeniedException' });
    const empty = secretFieldsCipher({ keyArn, kms: { encrypt: async () => ({}), decrypt: kms.decrypt }, envelope: fakeEnvelope().load });
    await expect(empty.seal(plaintext, context)).rejects.toThrow('KMS Encrypt answered without a ciphertext.');
  });
});

describe('a secret sealed by the Encryption SDK', () => {
  it('is opened by the Encryption SDK, loaded then, and its refusal is this module\'s SecretNotOpened with the same reason', async () => {
    const { cipher, calls, envelope } = setUp();
    await expect(cipher.open(`ESDK(${Buffer.from(plaintext).toString('base64')})`, context)).resolves.toBe(plaintext);
    expect(envelope.loads).toHaveBeenCalledTimes(1);
    expect(calls).toEqual([]);
    const error = await refusal(cipher.open('AgR4bm90IGEgbWVzc2FnZQ==', context));
    expect(error.message).toBe('The secret could not be decrypted: not a sealed secret.');
  });
});

describe('configuration', () => {
  it.each([
    ['an alias', 'arn:aws:kms:us-east-1:123456789012:alias/secrets'],
    ['a bare key ID', '1234abcd-12ab-34cd-56ef-1234567890ab'],
    ['nothing', ''],
  ])('fails fast with %s instead of a key ARN', (_, arn) => {
    expect(() => secretFieldsCipher({ keyArn: arn, kms: fakeKms().kms, envelope: fakeEnvelope().load })).toThrow(
      new SecretKeyConfigurationError('The secret-fields key must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>).'),
    );
  });
});
