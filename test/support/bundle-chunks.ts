// Test support: the chunks the construct's afterBundling hook writes beside a bundle (infra/build/lazy-chunks.mjs).

/** The SDK's on-demand imports, a chunk each (libraryChunkAliases): every bundle with an SDK client names them all. */
export const sdkChunkFiles = [
  'credential-provider-http',
  'credential-provider-imds',
  'credential-provider-ini',
  'credential-provider-process',
  'credential-provider-sso',
  'credential-provider-web-identity',
  'event-streams',
].map((name) => `lazy/${name}.mjs`);

/** What buildLazyChunks returns for a bundle with an SDK client and these chunks of its own (e.g. 'xml-parser'). */
export const chunkFilesWith = (...own: readonly string[]) => ['package.json', ...[...sdkChunkFiles, ...own.map((name) => `lazy/${name}.mjs`)].sort()];
