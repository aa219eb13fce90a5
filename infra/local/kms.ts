// Local stack: AWS KMS, as far as the service's code calls it. The secret-fields cipher calls Encrypt (to seal) and
// Decrypt (to open); the AWS Encryption SDK's KMS keyring, for a longer secret, GenerateDataKey and Decrypt;
// DescribeKey is served too. Symmetric keys only, one
// per AWS::KMS::Key of the templates, with key material random per key (kept beside the data unless in memory,
// so stored ciphertexts stay readable across restarts; never logged). A ciphertext blob is AES-256-GCM under the
// key's material with the encryption context as additional authenticated data: a blob opens only under the context
// it was made with, as on KMS. Keys are named by key id, key ARN, alias name or alias ARN.
//
// The JSON protocol (awsJson1_1, `X-Amz-Target: TrentService.<Operation>`) on a port of its own; functions reach it
// through the IAM edge (iam-edge.ts), which enforces both the caller's role policies and the key policy.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AwsJsonError, jsonTargetPrefixes, startAwsJsonServer, type AwsJsonEmulationOptions, type JsonOperation, type RunningAwsJsonServer } from './aws-json-server';
import { localAccountId, localRegion } from './local-aws';

/** A key policy statement as the template writes it, resolved: its principals (`*`, a role, the account root). */
export interface KeyPolicyStatement {
  readonly effect: 'Allow' | 'Deny';
  readonly principals: readonly string[];
  readonly actions: readonly string[];
  readonly resources: readonly string[];
  readonly conditions?: Readonly<Record<string, Readonly<Record<string, string | readonly string[]>>>>;
  /** Where it is written (`BusinessPlatform-Data SecretFieldsKey3F57D89E KeyPolicy.Statement[1]`), for the log. */
  readonly source: string;
}

/** A KMS key as the local stack creates it from the template. */
export interface LocalKmsKeyDefinition {
  readonly keyId: string;
  /** Its template resource (`BusinessPlatform-Data SecretFieldsKey3F57D89E`). */
  readonly source: string;
  readonly policy: readonly KeyPolicyStatement[];
  /** `alias/<name>` of its AWS::KMS::Alias resources. */
  readonly aliases?: readonly string[];
  readonly enabled?: boolean;
}

export const kmsKeyArn = (keyId: string): string => `arn:aws:kms:${localRegion}:${localAccountId}:key/${keyId}`;

/** A key id names the key of a blob: the first 16 bytes after the version byte are its UUID. */
const blobVersion = 1;
const ivBytes = 12;
const tagBytes = 16;
const uuidBytes = 16;

const uuidToBytes = (uuid: string): Buffer => Buffer.from(uuid.replace(/-/g, ''), 'hex');
const bytesToUuid = (bytes: Buffer): string => {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** The key id a ciphertext blob of this emulation names, or undefined for anything else. */
export const keyIdOfCiphertext = (blob: Buffer): string | undefined =>
  blob.length >= 1 + uuidBytes + ivBytes + tagBytes && blob[0] === blobVersion ? bytesToUuid(blob.subarray(1, 1 + uuidBytes)) : undefined;

/** The encryption context as KMS binds it: order does not matter, every pair does. */
const contextAad = (context: Readonly<Record<string, string>>): Buffer =>
  Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), 'utf8');

const isStringMap = (value: unknown): value is Record<string, string> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((entry) => typeof entry === 'string');

interface LiveKey extends LocalKmsKeyDefinition {
  readonly arn: string;
  readonly material: Buffer;
}

/** A key's material: `<dataDir>/kms/<keyId>.key` (mode 600) when the stack keeps its data, else random per start. */
const keyMaterial = (keyId: string, dataDir: string | undefined): Buffer => {
  if (dataDir === undefined) return randomBytes(32);
  const directory = join(dataDir, 'kms');
  const file = join(directory, `${keyId}.key`);
  try {
    const stored = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (stored.length === 32) return stored;
  } catch {
    // made below
  }
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const material = randomBytes(32);
  writeFileSync(file, `${material.toString('base64')}\n`, { mode: 0o600 });
  return material;
};

export interface KmsEmulationOptions extends AwsJsonEmulationOptions {
  readonly keys: readonly LocalKmsKeyDefinition[];
  /** Where key material is kept; undefined: in memory only (a new key per start). */
  readonly dataDir?: string;
}

export interface RunningKms extends RunningAwsJsonServer {
  /** The key ARN a KeyId (key id, key ARN, alias name, alias ARN) names, or undefined. */
  keyArnOf(keyId: string): string | undefined;
  /** The key's policy statements, by key ARN. */
  policyOf(keyArn: string): { readonly statements: readonly KeyPolicyStatement[]; readonly source: string } | undefined;
}

/** The key a KMS request names: its KeyId, else (Decrypt) the key its ciphertext blob names. */
export const requestedKeyId = (operation: string, input: Readonly<Record<string, unknown>>): string | undefined => {
  if (typeof input.KeyId === 'string') return input.KeyId;
  if (operation === 'Decrypt' && typeof input.CiphertextBlob === 'string') return keyIdOfCiphertext(Buffer.from(input.CiphertextBlob, 'base64'));
  return undefined;
};

export const startKmsEmulation = async (options: KmsEmulationOptions): Promise<RunningKms> => {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const byArn = new Map<string, LiveKey>();
  const names = new Map<string, string>();
  for (const definition of options.keys) {
    const arn = kmsKeyArn(definition.keyId);
    byArn.set(arn, { ...definition, arn, material: keyMaterial(definition.keyId, options.dataDir) });
    names.set(definition.keyId, arn).set(arn, arn);
    for (const alias of definition.aliases ?? []) names.set(alias, arn).set(`arn:aws:kms:${localRegion}:${localAccountId}:${alias}`, arn);
  }

  const keyOf = (keyId: unknown): LiveKey => {
    if (typeof keyId !== 'string' || keyId === '') throw new AwsJsonError('ValidationException', 'KeyId is required.');
    const key = byArn.get(names.get(keyId) ?? '');
    if (!key) throw new AwsJsonError('NotFoundException', `Key '${keyId}' does not exist`);
    if (key.enabled === false) throw new AwsJsonError('DisabledException', `${key.arn} is disabled.`);
    return key;
  };
  const contextOf = (input: Record<string, unknown>): Record<string, string> => {
    if (input.EncryptionContext === undefined) return {};
    if (!isStringMap(input.EncryptionContext)) throw new AwsJsonError('ValidationException', 'EncryptionContext must map strings to strings.');
    return input.EncryptionContext;
  };
  const seal = (key: LiveKey, plaintext: Buffer, context: Record<string, string>): Buffer => {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', key.material, iv);
    cipher.setAAD(contextAad(context));
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.from([blobVersion]), uuidToBytes(key.keyId), iv, cipher.getAuthTag(), sealed]);
  };
  const dataKeyLength = (input: Record<string, unknown>): number => {
    if (input.NumberOfBytes !== undefined) {
      if (!Number.isInteger(input.NumberOfBytes) || (input.NumberOfBytes as number) < 1 || (input.NumberOfBytes as number) > 1024) {
        throw new AwsJsonError('ValidationException', 'NumberOfBytes must be from 1 to 1024.');
      }
      return input.NumberOfBytes as number;
    }
    if (input.KeySpec === 'AES_256') return 32;
    if (input.KeySpec === 'AES_128') return 16;
    throw new AwsJsonError('ValidationException', 'Specify either KeySpec or NumberOfBytes.');
  };
  const blobOf = (value: unknown, name: string, max: number): Buffer => {
    if (typeof value !== 'string' || value === '') throw new AwsJsonError('ValidationException', `${name} is required.`);
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === 0 || bytes.length > max) throw new AwsJsonError('ValidationException', `${name} must be 1 to ${max} bytes.`);
    return bytes;
  };

  const operations = new Map<string, JsonOperation>(Object.entries({
    GenerateDataKey: (input) => {
      const key = keyOf(input.KeyId);
      const plaintext = randomBytes(dataKeyLength(input));
      return {
        KeyId: key.arn,
        Plaintext: plaintext.toString('base64'),
        CiphertextBlob: seal(key, plaintext, contextOf(input)).toString('base64'),
      };
    },
    Encrypt: (input) => {
      const key = keyOf(input.KeyId);
      const plaintext = blobOf(input.Plaintext, 'Plaintext', 4096);
      return { KeyId: key.arn, CiphertextBlob: seal(key, plaintext, contextOf(input)).toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    },
    Decrypt: (input) => {
      const blob = blobOf(input.CiphertextBlob, 'CiphertextBlob', 6144);
      const blobKeyId = keyIdOfCiphertext(blob);
      if (!blobKeyId) throw new AwsJsonError('InvalidCiphertextException', 'The ciphertext is not valid.');
      const key = keyOf(blobKeyId);
      // A KeyId that names another key than the blob's is an IncorrectKeyException, as on KMS.
      if (input.KeyId !== undefined && keyOf(input.KeyId).arn !== key.arn) {
        throw new AwsJsonError('IncorrectKeyException', 'The key ID in the request does not identify a key that can perform this operation.');
      }
      const iv = blob.subarray(1 + uuidBytes, 1 + uuidBytes + ivBytes);
      const tag = blob.subarray(1 + uuidBytes + ivBytes, 1 + uuidBytes + ivBytes + tagBytes);
      const decipher = createDecipheriv('aes-256-gcm', key.material, iv);
      decipher.setAAD(contextAad(contextOf(input)));
      decipher.setAuthTag(tag);
      let plaintext: Buffer;
      try {
        plaintext = Buffer.concat([decipher.update(blob.subarray(1 + uuidBytes + ivBytes + tagBytes)), decipher.final()]);
      } catch {
        // Another context, or a damaged blob: KMS does not say which.
        throw new AwsJsonError('InvalidCiphertextException', 'The ciphertext is not valid.');
      }
      return { KeyId: key.arn, Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    },
    DescribeKey: (input) => {
      const key = keyOf(input.KeyId);
      return {
        KeyMetadata: {
          AWSAccountId: localAccountId,
          KeyId: key.keyId,
          Arn: key.arn,
          Enabled: key.enabled !== false,
          KeyState: key.enabled === false ? 'Disabled' : 'Enabled',
          KeyUsage: 'ENCRYPT_DECRYPT',
          KeySpec: 'SYMMETRIC_DEFAULT',
          CustomerMasterKeySpec: 'SYMMETRIC_DEFAULT',
          EncryptionAlgorithms: ['SYMMETRIC_DEFAULT'],
          KeyManager: 'CUSTOMER',
          Origin: 'AWS_KMS',
        },
      };
    },
  }));

  const running = await startAwsJsonServer({
    service: 'KMS',
    logTag: 'kms',
    targetPrefix: jsonTargetPrefixes.kms,
    operations,
    tooLargeType: 'ValidationException',
    internalErrorType: 'KMSInternalException',
    log,
    ...(options.port !== undefined ? { port: options.port } : {}),
  });
  return {
    ...running,
    keyArnOf: (keyId) => names.get(keyId),
    policyOf: (keyArn) => {
      const key = byArn.get(keyArn);
      return key && { statements: key.policy, source: key.source };
    },
  };
};
