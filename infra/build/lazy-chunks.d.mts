import type { BuildOptions } from 'esbuild';

export declare const lazyPrefix: '#lazy/';
export declare const chunkReplacements: Readonly<Record<string, string>>;
export declare const lazyModules: () => Record<string, string>;
export declare const lazySpecifiersIn: (code: string) => string[];
export declare const buildLazyChunks: (folder: string, esbuildOptions: BuildOptions, entryFile?: string) => Promise<string[]>;
