import type { BuildOptions, Plugin } from 'esbuild';

export declare const lazyPrefix: '#lazy/';
export interface ChunkModuleReplacement {
  /** The importing module, as the end of its path. */
  readonly importer: string;
  /** Its relative specifiers that are replaced. */
  readonly specifiers: readonly string[];
  /** The replacement, `./path` from the repository root. */
  readonly replacement: string;
}
export declare const chunkModuleReplacements: readonly ChunkModuleReplacement[];
export declare const chunkModuleReplacementPlugin: (replacements?: readonly ChunkModuleReplacement[]) => Plugin;
export declare const lazyModules: () => Record<string, string>;
export declare const libraryChunkAliases: () => string[];
export declare const lazySpecifiersIn: (code: string) => string[];
export declare const buildLazyChunks: (folder: string, esbuildOptions: BuildOptions, entryFile?: string) => Promise<string[]>;
