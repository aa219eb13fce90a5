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
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { closeServer, listen, localAccountId, localRegion, readRequestBody } from './local-aws';

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

class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

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

export interface KmsEmulationOptions {
  readonly keys: readonly LocalKmsKeyDefinition[];
  /** Where key material is kept; undefined: in memory only (a new key per start). */
  readonly dataDir?: string;
  readonly port?: number;
  readonly log?: (line: string) => void;
}

export interface RunningKms {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly server: Server;
  /** The key ARN a KeyId (key id, key ARN, alias name, alias ARN) names, or undefined. */
  keyArnOf(keyId: string): string | undefined;
  /** The key's policy statements, by key ARN. */
  policyOf(keyArn: string): { readonly statements: readonly KeyPolicyStatement[]; readonly source: string } | undefined;
  close(): Promise<void>;
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
    if (typeof keyId !== 'string' || keyId === '') throw new KmsError('ValidationException', 'KeyId is required.');
    const key = byArn.get(names.get(keyId) ?? '');
    if (!key) throw new KmsError('NotFoundException', `Key '${keyId}' does not exist`);
    if (key.enabled === false) throw new KmsError('DisabledException', `${key.arn} is disabled.`);
    return key;
  };
  const contextOf = (input: Record<string, unknown>): Record<string, string> => {
    if (input.EncryptionContext === undefined) return {};
    if (!isStringMap(input.EncryptionContext)) throw new KmsError('ValidationException', 'EncryptionContext must map strings to strings.');
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
        throw new KmsError('ValidationException', 'NumberOfBytes must be from 1 to 1024.');
      }
      return input.NumberOfBytes as number;
    }
    if (input.KeySpec === 'AES_256') return 32;
    if (input.KeySpec === 'AES_128') return 16;
    throw new KmsError('ValidationException', 'Specify either KeySpec or NumberOfBytes.');
  };
  const blobOf = (value: unknown, name: string, max: number): Buffer => {
    if (typeof value !== 'string' || value === '') throw new KmsError('ValidationException', `${name} is required.`);
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length === 0 || bytes.length > max) throw new KmsError('ValidationException', `${name} must be 1 to ${max} bytes.`);
    return bytes;
  };

  const operations = new Map<string, (input: Record<string, unknown>) => Record<string, unknown>>(Object.entries({
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
      if (!blobKeyId) throw new KmsError('InvalidCiphertextException', 'The ciphertext is not valid.');
      const key = keyOf(blobKeyId);
      // A KeyId that names another key than the blob's is an IncorrectKeyException, as on KMS.
      if (input.KeyId !== undefined && keyOf(input.KeyId).arn !== key.arn) {
        throw new KmsError('IncorrectKeyException', 'The key ID in the request does not identify a key that can perform this operation.');
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
        throw new KmsError('InvalidCiphertextException', 'The ciphertext is not valid.');
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

  const reply = (response: ServerResponse, status: number, body: Record<string, unknown>) => {
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'Content-Type': 'application/x-amz-json-1.1',
      'Content-Length': String(Buffer.byteLength(text)),
      'x-amzn-RequestId': randomUUID(),
    });
    response.end(text);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readRequestBody(request, 1024 * 1024);
    if (body === undefined) return reply(response, 413, { __type: 'ValidationException', message: 'Request too large.' });
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = target.startsWith('TrentService.') ? operations.get(target.slice('TrentService.'.length)) : undefined;
    if (request.method !== 'POST' || !operation) {
      return reply(response, 400, { __type: 'UnknownOperationException', message: `The local KMS does not emulate ${target || 'this request'}.` });
    }
    let input: unknown;
    try {
      input = JSON.parse(body.toString('utf8') || '{}');
    } catch {
      return reply(response, 400, { __type: 'SerializationException', message: 'The request is not JSON.' });
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return reply(response, 400, { __type: 'SerializationException', message: 'The request is not a JSON object.' });
    }
    try {
      reply(response, 200, operation(input as Record<string, unknown>));
    } catch (error) {
      if (!(error instanceof KmsError)) throw error;
      reply(response, error.status, { __type: error.type, message: error.message });
    }
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // Never the request: it may carry a plaintext.
      log(`[kms] unexpected failure: ${error instanceof Error ? error.name : 'error'}`);
      if (!response.headersSent) reply(response, 500, { __type: 'KMSInternalException', message: 'The local KMS failed.' });
      else response.destroy();
    });
  });
  const port = await listen(server, options.port ?? 0, '127.0.0.1');
  return {
    endpoint: `http://127.0.0.1:${port}`,
    server,
    keyArnOf: (keyId) => names.get(keyId),
    policyOf: (keyArn) => {
      const key = byArn.get(keyArn);
      return key && { statements: key.policy, source: key.source };
    },
    close: () => closeServer(server),
  };
};
