// Types of infra/build/eager-wrappers.mjs (plain JavaScript, run by the construct's afterBundling hook).
export interface Insertion {
  readonly at: number;
  readonly text: '(' | ')';
}
export interface RawSourceMap {
  readonly mappings: string;
  readonly [key: string]: unknown;
}
export function eagerWrapperInsertions(code: string): Insertion[];
export function shiftMappings(mappings: string, insertedColumns: readonly (readonly number[] | undefined)[]): string;
export function eagerWrappers<Map extends RawSourceMap | undefined>(code: string, map: Map): { readonly code: string; readonly map: Map; readonly wrapped: number };
export function eagerWrappersIn(folder: string): string[];
