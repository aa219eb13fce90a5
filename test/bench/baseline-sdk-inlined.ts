// Benchmark: the baseline (baseline-handler.ts), bundled as every function was before the AWS SDK's on-demand imports
// became chunks of their own (infra/build/lazy-chunks.mjs `libraryChunkAliases`): the section builds this module
// without those aliases, so the SDK's credential providers and event-stream codec are inlined into the bundle, as
// esbuild alone inlines them. Not a function: its ratio to the baseline is what the chunks save a function that needs
// only the SDK, measured in the same run (section-cold.ts).
export { handler } from './baseline-handler';
