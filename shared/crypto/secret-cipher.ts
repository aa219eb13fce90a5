// Crypto: the cipher of secret fields as a function uses it. A secret of at most 4,096 bytes of UTF-8 (every
// credential in practice) is sealed with one KMS `Encrypt` under its encryption context and opened with one
// `Decrypt`: KMS's own AES-256-GCM, the context its additional authenticated data, the key never leaving KMS. A
// longer one is an AWS Encryption SDK message (envelope.ts, the `#lazy/secret-cipher` chunk, loaded only for it),
// as every secret was before issue 23: the chunk's compile and first run were about 25 ms of a save's first call.
// Both are opened, so secrets stored before stay readable. This module imports no library: what it calls KMS
// through and how it loads the chunk are given to it (scheduled-tasks/wiring.ts), so it sits in the bundle for
// nothing but its own lines, and the unit tests give it fakes.

/** Names what a secret belongs to (tenant, task, field); a ciphertext opens only under the same context. */
export type EncryptionContext = Readonly<Record<string, string>>;

export interface SecretCipher {
  /** Encrypts a secret under a context; the result is text, safe to store. */
  seal(plaintext: string, context: EncryptionContext): Promise<string>;
  /** Decrypts a sealed secret; throws SecretNotOpened when it is damaged, foreign, or sealed under another context. */
  open(sealed: string, context: EncryptionContext): Promise<string>;
}

/** A sealed secret could not be opened. Its message never carries the ciphertext, the plaintext or the context. */
export class SecretNotOpened extends Error {
  constructor(readonly reason: string) {
    super(`The secret could not be decrypted: ${reason}.`);
    this.name = 'SecretNotOpened';
  }
}

/**
 * The configuration is wrong (missing, ambiguous or malformed key settings): thrown at start-up, so a function
 * fails fast instead of storing a secret it could not protect.
 */
export class SecretKeyConfigurationError extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'SecretKeyConfigurationError';
  }
}

const keyArnPattern = /^arn:aws[a-z-]*:kms:([a-z0-9-]+):\d{12}:key\/[A-Za-z0-9-]+$/;

/**
 * The region of the secret-fields key. Only a key ARN is accepted (not an alias, not a bare ID): the cipher names
 * the key on every call, so only that key ever decrypts (strict mode).
 */
export const keyRegionOf = (keyArn: string): string => {
  const region = keyArnPattern.exec(keyArn)?.[1];
  if (region === undefined) throw new SecretKeyConfigurationError('The secret-fields key must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>).');
  return region;
};

/** The two KMS calls a direct seal and open make, as the SDK's client answers them (crypto/kms-client.ts). */
export interface DirectKmsCalls {
  encrypt(input: { KeyId: string; Plaintext: Uint8Array; EncryptionContext: Record<string, string> }): Promise<{ CiphertextBlob?: Uint8Array | undefined }>;
  decrypt(input: { KeyId: string; CiphertextBlob: Uint8Array; EncryptionContext: Record<string, string> }): Promise<{ Plaintext?: Uint8Array | undefined }>;
}

/** KMS `Encrypt` takes at most 4,096 bytes of plaintext. */
export const directPlaintextLimit = 4096;
/** What marks a directly sealed secret: `kms:` and the base64 of KMS's ciphertext blob. An SDK message is bare base64, which never holds a colon. */
export const directPrefix = 'kms:';
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** KMS's answers to a ciphertext it will not open: damaged, another key's, or another context's (KMS does not say which). */
const refusedByKms = new Set(['InvalidCiphertextException', 'IncorrectKeyException']);
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The chunk's cipher throws its own copy of SecretNotOpened (a chunk is bundled apart): its refusals are given again
 * as this module's class, so a caller's `instanceof` holds whichever path opened the secret.
 */
const sameRefusal = (error: unknown): unknown =>
  error instanceof Error && error.name === 'SecretNotOpened' && typeof (error as Partial<SecretNotOpened>).reason === 'string'
    ? new SecretNotOpened((error as SecretNotOpened).reason)
    : error;

/**
 * The secret-fields cipher over `keyArn`: KMS directly up to 4,096 bytes, the Encryption SDK's message (`envelope`,
 * loaded on first use) beyond. A KMS failure other than a refused ciphertext (throttling, a network error, a denied
 * call) is thrown as it is: the dependency is down, not the secret damaged.
 */
export const secretFieldsCipher = (options: { readonly keyArn: string; readonly kms: DirectKmsCalls; readonly envelope: () => Promise<SecretCipher> }): SecretCipher => {
  const { keyArn, kms, envelope } = options;
  keyRegionOf(keyArn);
  return {
    async seal(plaintext, context) {
      const bytes = Buffer.from(plaintext, 'utf8');
      if (bytes.length > directPlaintextLimit) return (await envelope()).seal(plaintext, context);
      const { CiphertextBlob } = await kms.encrypt({ KeyId: keyArn, Plaintext: bytes, EncryptionContext: { ...context } });
      if (!CiphertextBlob || CiphertextBlob.length === 0) throw new Error('KMS Encrypt answered without a ciphertext.');
      return `${directPrefix}${Buffer.from(CiphertextBlob).toString('base64')}`;
    },
    async open(sealed, context) {
      if (!sealed.startsWith(directPrefix)) {
        const cipher = await envelope();
        try {
          return await cipher.open(sealed, context);
        } catch (error) {
          throw sameRefusal(error);
        }
      }
      const blob = sealed.slice(directPrefix.length);
      if (blob === '' || !base64.test(blob)) throw new SecretNotOpened('not a sealed secret');
      let answer: { Plaintext?: Uint8Array | undefined };
      try {
        // The key is named, so a blob of another key is refused (IncorrectKeyException) instead of opened with it;
        // the context is the blob's additional authenticated data, so another tenant, task or field is refused.
        answer = await kms.decrypt({ KeyId: keyArn, CiphertextBlob: Buffer.from(blob, 'base64'), EncryptionContext: { ...context } });
      } catch (error) {
        if (error instanceof Error && refusedByKms.has(error.name)) throw new SecretNotOpened('damaged, sealed with another key, or sealed for another owner or field');
        throw error;
      }
      if (!answer.Plaintext) throw new Error('KMS Decrypt answered without a plaintext.');
      try {
        return utf8.decode(answer.Plaintext);
      } catch {
        throw new SecretNotOpened('not a sealed secret');
      }
    },
  };
};
