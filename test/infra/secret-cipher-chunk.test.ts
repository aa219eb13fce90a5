// Infra test: the secret-cipher chunk (`#lazy/secret-cipher`, built by infra/build/lazy-chunks.mjs) seals and opens
// as the Encryption SDK does unbundled, with the modules of its signature keys loaded on their first use
// (shared/crypto/lazy-signature-helpers.ts). The chunk runs in a fresh process of the functions' Node (the
// template's runtime), with the tests' raw AES keyring (the chunk's `localSecretCipher`): what differs from KMS is
// the keyring, not the message path under test.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildEncrypt } from '@aws-crypto/encrypt-node';
import { AlgorithmSuiteIdentifier, CommitmentPolicy } from '@aws-crypto/material-management-node';
import { RawAesKeyringNode, RawAesWrappingSuiteIdentifier } from '@aws-crypto/raw-aes-keyring-node';
import { esbuildOptionsFor } from '#infra/build/esbuild-options';
import { buildLazyChunks, chunkModuleReplacementPlugin } from '../../infra/build/lazy-chunks.mjs';
import { functionBundling, functionRuntime } from '#infra/constructs/operation-function';
import { nodeExecutableFor } from '#infra/local/lambda-runtime';
import { build } from 'esbuild';

const functionNode = nodeExecutableFor(functionRuntime.name, { subject: 'secret-cipher chunk test' }).path;
const folder = mkdtempSync(join(tmpdir(), 'secret-cipher-chunk-'));
const key = new Uint8Array(32).fill(7);
const context = { tenant: '1', task: 't', field: 'password' };

beforeAll(async () => {
  writeFileSync(join(folder, 'index.mjs'), "export const cipher = () => import('#lazy/secret-cipher');\n");
  expect(await buildLazyChunks(folder, esbuildOptionsFor(functionBundling))).toEqual(['package.json', 'lazy/secret-cipher.mjs']);
}, 120_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs `script` (an async function body given `cipher`, the chunk's cipher over `key`) in the functions' Node. */
const inChunk = async (script: string, env: Record<string, string> = {}): Promise<string> => {
  const runner = join(folder, `run-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(
    runner,
    "const { cipher: load } = await import('./index.mjs');" +
      `const cipher = (await load()).localSecretCipher(new Uint8Array(32).fill(7));` +
      `const out = await (async () => { ${script} })();` +
      'process.stdout.write(String(out));',
  );
  const { stdout } = await promisify(execFile)(functionNode, [runner], { cwd: folder, env: { PATH: process.env.PATH, ...env } });
  return stdout;
};

/** A message the unbundled SDK seals under `key` with a suite that signs (ECDSA P-384), which the cipher never writes. */
const signedMessage = async (): Promise<string> => {
  const { encrypt } = buildEncrypt({ commitmentPolicy: CommitmentPolicy.REQUIRE_ENCRYPT_REQUIRE_DECRYPT, maxEncryptedDataKeys: 1 });
  const keyring = new RawAesKeyringNode({
    keyName: 'secret-fields',
    keyNamespace: 'business-platform-api',
    unencryptedMasterKey: new Uint8Array(key),
    wrappingSuite: RawAesWrappingSuiteIdentifier.AES256_GCM_IV12_TAG16_NO_PADDING,
  });
  const { result } = await encrypt(keyring, Buffer.from('signed secret'), { encryptionContext: context, suiteId: AlgorithmSuiteIdentifier.ALG_AES256_GCM_IV12_TAG16_HKDF_SHA512_COMMIT_KEY_ECDSA_P384 });
  return result.toString('base64');
};

describe('the secret-cipher chunk', () => {
  it('seals and opens a secret under its context, and refuses it under another', async () => {
    const script = `const sealed = await cipher.seal('s3cret', ${JSON.stringify(context)});
      const opened = await cipher.open(sealed, ${JSON.stringify(context)});
      const refused = await cipher.open(sealed, { ...${JSON.stringify(context)}, field: 'other' }).then(() => 'opened', (error) => error.message);
      return JSON.stringify({ opened, refused });`;
    expect(JSON.parse(await inChunk(script))).toEqual({ opened: 's3cret', refused: 'The secret could not be decrypted: sealed for another owner or field.' });
  }, 60_000);

  it('verifies a signed message with the deferred signature modules, then refuses its suite as before', async () => {
    const sealed = await signedMessage();
    const script = `return cipher.open(process.env.SEALED, ${JSON.stringify(context)}).then(() => 'opened', (error) => error.message);`;
    // Decrypting it decodes the P-384 point and builds the key's PEM (the deferred modules); a damaged signature
    // would end as "damaged, or sealed with another key" instead.
    expect(await inChunk(script, { SEALED: sealed })).toBe('The secret could not be decrypted: unexpected algorithm suite.');
    const damaged = Buffer.from(sealed, 'base64');
    damaged.writeUInt8(damaged.readUInt8(damaged.length - 1) ^ 1, damaged.length - 1);
    expect(await inChunk(script, { SEALED: damaged.toString('base64') })).toBe('The secret could not be decrypted: damaged, or sealed with another key.');
  }, 60_000);

  it('fails the build when the library no longer imports what the replacement stands for', async () => {
    const plugin = chunkModuleReplacementPlugin([{ importer: 'node_modules/@aws-crypto/material-management/build/module/src/signature_key.js', specifiers: ['./ecc_decode', './no_such_module'], replacement: './shared/crypto/lazy-signature-helpers.ts' }]);
    await expect(build({ ...esbuildOptionsFor(functionBundling), entryPoints: [join(process.cwd(), 'shared/crypto/envelope.ts')], bundle: true, write: false, outfile: join(folder, 'x.mjs'), plugins: [plugin] })).rejects.toThrow(/no longer match their library/);
  }, 60_000);
});
