// Crypto: envelope encryption of a secret with the AWS Encryption SDK and its KMS keyring (the key's ARN from the
// environment), on AWS and on the local stack alike (the local stack serves KMS: infra/local/kms.ts). Each secret is
// its own ESDK message, bound to an encryption context that open() checks. Since issue 23 a function seals only
// secrets over KMS Encrypt's 4,096 bytes this way (secret-cipher.ts seals the others with KMS directly) and opens
// every message sealed so before: this module is the `#lazy/secret-cipher` chunk, loaded only for those.
// The Encryption SDK's packages that this module uses, not their umbrella `@aws-crypto/client-node`: the umbrella
// also brings the raw RSA keyring (which encrypts with a 4096-bit RSA key at load to probe OAEP support), the caching
// materials manager and, through the hierarchical keyring, the branch key store with a DynamoDB client of its own;
// the chunk this module becomes (`#lazy/secret-cipher`) was 727 KiB with them, 569 KiB without (issue 23).
// Nor the KMS client: the keyring is the Encryption SDK's generic one (`@aws-crypto/kms-keyring`, what
// `@aws-crypto/kms-keyring-node` wraps around the SDK's whole `KMS` client) and calls the client the function passes
// in (kms-client.ts, built in the function's own bundle, which already holds the SDK's core). A chunk is bundled
// apart from the function, so a client built here carried a second copy of the SDK's core, protocols and credential
// providers (about 330 KiB of the 558) and resolved its credentials and configuration a second time (issue 23).
import { buildDecrypt } from '@aws-crypto/decrypt-node';
import { buildEncrypt } from '@aws-crypto/encrypt-node';
import { KmsKeyringClass, type AwsEsdkKMSInterface, type KmsClientSupplier } from '@aws-crypto/kms-keyring';
import { AlgorithmSuiteIdentifier, CommitmentPolicy, immutableClass, KeyringNode, type Newable, type NodeAlgorithmSuite } from '@aws-crypto/material-management-node';
import { RawAesKeyringNode, RawAesWrappingSuiteIdentifier } from '@aws-crypto/raw-aes-keyring-node';
import { keyRegionOf, SecretKeyConfigurationError, SecretNotOpened, type EncryptionContext, type SecretCipher } from './secret-cipher';

/** What the keyring calls KMS through: GenerateDataKey, Encrypt and Decrypt, each returning the SDK's answer. */
export type KeyringKmsClient = AwsEsdkKMSInterface;
/** The KMS client of a region (the key's); false when there is none for it. */
export type KmsClientProvider = KmsClientSupplier<KeyringKmsClient>;

/**
 * Committing AES-256-GCM with HKDF, without an ECDSA signature: the same function role seals and opens, so a
 * signature (which separates writers from readers) would add 100 bytes and a P-384 signing per secret for nothing.
 */
const suiteId = AlgorithmSuiteIdentifier.ALG_AES256_GCM_IV12_TAG16_HKDF_SHA512_COMMIT_KEY;
/** One data key per message; a message listing more could make decrypt call KMS for keys we never issued. */
const clientOptions = { commitmentPolicy: CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT, maxEncryptedDataKeys: 1 };
const { encrypt } = buildEncrypt(clientOptions);
const { decrypt } = buildDecrypt(clientOptions);
/** Credentials are bounded to 8 KiB of text by the schemas: 32 KiB of UTF-8 is a generous ceiling for decrypt. */
const maxBodySize = 32 * 1024;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

const sameContext = (actual: Readonly<Record<string, string>>, expected: EncryptionContext): boolean => {
  const expectedKeys = Object.keys(expected);
  return (
    Object.keys(actual).length === expectedKeys.length &&
    expectedKeys.every((key) => Object.hasOwn(actual, key) && actual[key] === expected[key])
  );
};

/** A cipher over any keyring: the production and local ciphers differ only in the keyring they pass here. */
export const envelopeCipher = (keyring: KeyringNode): SecretCipher => ({
  async seal(plaintext, context) {
    const { result } = await encrypt(keyring, Buffer.from(plaintext, 'utf8'), { encryptionContext: { ...context }, suiteId });
    return result.toString('base64');
  },
  async open(sealed, context) {
    if (!base64.test(sealed)) throw new SecretNotOpened('not a sealed secret');
    let opened: Awaited<ReturnType<typeof decrypt>>;
    try {
      opened = await decrypt(keyring, Buffer.from(sealed, 'base64'), { maxBodySize });
    } catch {
      // The SDK's own message may quote header fields: only our fixed reason leaves this function.
      throw new SecretNotOpened('damaged, or sealed with another key');
    }
    const { messageHeader, plaintext } = opened;
    if (messageHeader.suiteId !== suiteId) throw new SecretNotOpened('unexpected algorithm suite');
    if (!sameContext(messageHeader.encryptionContext, context)) throw new SecretNotOpened('sealed for another owner or field');
    return plaintext.toString('utf8');
  },
});

const keyNamespace = 'business-platform-api';
const keyName = 'secret-fields';

/**
 * A raw AES-256-GCM wrapping key (32 bytes) as keyring: the tests' stand-in for KMS when they inject a cipher. No
 * function uses it; the environment configures only the KMS keyring.
 */
export const localSecretCipher = (key: Uint8Array): SecretCipher => {
  if (key.length !== 32) throw new SecretKeyConfigurationError('The local secret key must be 32 bytes (AES-256).');
  return envelopeCipher(
    new RawAesKeyringNode({
      keyName,
      keyNamespace,
      unencryptedMasterKey: new Uint8Array(key),
      wrappingSuite: RawAesWrappingSuiteIdentifier.AES256_GCM_IV12_TAG16_NO_PADDING,
    }),
  );
};

/**
 * The Encryption SDK's KMS keyring for Node, over a client the caller supplies: KmsKeyringNode without its default
 * client. KeyringNode is abstract in its types; KmsKeyringClass implements what it leaves abstract (as for
 * KmsKeyringNode, which passes it the same way).
 */
class KmsKeyring extends KmsKeyringClass<NodeAlgorithmSuite, KeyringKmsClient>(KeyringNode as unknown as Newable<KeyringNode>) {}
immutableClass(KmsKeyring);

/**
 * AWS's keyring: KMS generates each data key (GenerateDataKey) and decrypts it (Decrypt) under the same encryption
 * context, so the key policy can require it. Only this key decrypts (strict mode: the ARN must be a key ARN, not an
 * alias). `clientProvider` gives the KMS client of the key's region: the function's traced client
 * (kms-client.ts), a fake in unit tests.
 */
export const kmsSecretCipher = (keyArn: string, clientProvider: KmsClientProvider): SecretCipher => {
  keyRegionOf(keyArn);
  return envelopeCipher(new KmsKeyring({ generatorKeyId: keyArn, clientProvider }));
};

let configured: { readonly keyArn: string; readonly cipher: SecretCipher } | undefined;

/**
 * The process's cipher over the secret-fields key, made once. The caller reads the key's ARN from the function's
 * environment (the sealSecrets and openSecrets grants set it, on AWS and for the key the local stack's KMS holds;
 * shared/operations/environment.ts) and passes its KMS clients (kms-client.ts): this module imports nothing of ours
 * (it is a lazy chunk of its own). There is no raw-key branch: what runs locally is what runs on AWS.
 */
export const secretCipher = (keyArn: string, clientProvider: KmsClientProvider): SecretCipher => {
  if (configured?.keyArn !== keyArn) configured = { keyArn, cipher: kmsSecretCipher(keyArn, clientProvider) };
  return configured.cipher;
};
