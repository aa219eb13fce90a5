// Crypto: what the secret-cipher chunk (`#lazy/secret-cipher`) gives the Encryption SDK's signature keys instead of
// two of its modules, so that loading the chunk does not do their work. `@aws-crypto/material-management`'s
// `signature_key.js` imports `ecc_decode.js` and `pem_helpers.js`, which at module scope compute a Montgomery
// context for P-256 and P-384 (bn.js: a modular inverse and divisions, about 5 ms of CPU per cold start) and define
// two ASN.1 models (asn1.js, 67 KiB evaluated). Only the suites that sign use them (an ECDSA key to sign with or
// verify against); the cipher's suite signs nothing, and a message of a signing suite (which open() refuses after
// decrypting it) is the only thing that reaches them. The build (infra/build/lazy-chunks.mjs,
// `chunkModuleReplacements`) points `signature_key.js`'s two imports here; each export calls the original module's
// own export, loaded on its first call: same functions, same results, the work deferred to the first signature.
// esbuild bundles each `require` of an ES module as an initialiser that runs on that first call.

type DecodeNamedCurves = Readonly<Record<string, (compressedPoint: Uint8Array) => Uint8Array>>;
interface EccDecode {
  readonly decodeNamedCurves: DecodeNamedCurves;
}
interface PemHelpers {
  publicKeyPem(curve: string, publicKey: Buffer): string;
  privateKeyPem(curve: string, privateKey: Buffer, publicKey: Buffer): string;
  chunk64(buff: Buffer): string[];
}

const eccDecode = (): EccDecode => require('@aws-crypto/material-management/build/module/src/ecc_decode.js') as EccDecode;
const pemHelpers = (): PemHelpers => require('@aws-crypto/material-management/build/module/src/pem_helpers.js') as PemHelpers;

const decoderOf =
  (curve: string) =>
  (compressedPoint: Uint8Array): Uint8Array => {
    const decode = eccDecode().decodeNamedCurves[curve];
    if (decode === undefined) throw new Error(`No decoder for the curve ${curve}.`);
    return decode(compressedPoint);
  };

/** The names `ecc_decode.js` exports a decoder under (Node's and WebCrypto's names of the two curves). */
export const decodeNamedCurves: DecodeNamedCurves = Object.freeze({
  prime256v1: decoderOf('prime256v1'),
  secp384r1: decoderOf('secp384r1'),
  'P-256': decoderOf('P-256'),
  'P-384': decoderOf('P-384'),
});

export const publicKeyPem: PemHelpers['publicKeyPem'] = (curve, publicKey) => pemHelpers().publicKeyPem(curve, publicKey);
export const privateKeyPem: PemHelpers['privateKeyPem'] = (curve, privateKey, publicKey) => pemHelpers().privateKeyPem(curve, privateKey, publicKey);
export const chunk64: PemHelpers['chunk64'] = (buff) => pemHelpers().chunk64(buff);
