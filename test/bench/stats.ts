// Benchmark: small statistics and formatting helpers. Percentiles interpolate linearly between order statistics
// (the "R-7" definition of most spreadsheets), so p50 of an even sample is the mean of the two middle values.
import { performance } from 'node:perf_hooks';

export const percentile = (samples: readonly number[], p: number): number => {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const lowValue = sorted[low] as number;
  const highValue = sorted[high] as number;
  return lowValue + (highValue - lowValue) * (rank - low);
};

export const median = (samples: readonly number[]): number => percentile(samples, 50);

export const mean = (samples: readonly number[]): number =>
  samples.length === 0 ? Number.NaN : samples.reduce((sum, value) => sum + value, 0) / samples.length;

export interface Summary {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
}

export const summarise = (samples: readonly number[]): Summary => ({
  n: samples.length,
  p50: percentile(samples, 50),
  p90: percentile(samples, 90),
  p99: percentile(samples, 99),
  min: samples.length ? Math.min(...samples) : Number.NaN,
  max: samples.length ? Math.max(...samples) : Number.NaN,
  mean: mean(samples),
});

/** Milliseconds an async call takes, measured with the monotonic high-resolution clock. */
export const timeAsync = async <T>(call: () => Promise<T>): Promise<{ ms: number; value: T }> => {
  const started = performance.now();
  const value = await call();
  return { ms: performance.now() - started, value };
};

export const shuffle = <T>(items: readonly T[], random: () => number): T[] => {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
};

export const ms = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
export const ratio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}x` : 'n/a');
export const bytes = (value: number): string =>
  value >= 1024 * 1024 ? `${(value / 1024 / 1024).toFixed(2)} MiB` : value >= 1024 ? `${(value / 1024).toFixed(1)} KiB` : `${value} B`;
export const units = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(2));

/** A plain-text table: a header row, a rule, and right-aligned numbers. */
export const renderTable = (headers: readonly string[], rows: readonly (readonly string[])[]): string => {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
  const numeric = headers.map((_, column) => rows.length > 0 && rows.every((row) => /^[-+]?[\d.,]+(\s?\S+)?$|^n\/a$|^-$/.test(row[column] ?? '')));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (numeric[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
};

/** One function's cold start as an area section reports it (from section 1's figures). */
export interface ColdRow {
  readonly name: string;
  readonly medianMs: number;
  readonly baselineMedianMs: number;
  readonly ratio: number;
  readonly verdict: string;
  readonly response: string;
}

/** The cold-start figures of the functions an area section reports, picked from section 1's by name. */
export const coldRowsOf = (functions: readonly ColdRow[], keep: (name: string) => boolean): ColdRow[] =>
  functions
    .filter((fn) => keep(fn.name))
    .map(({ name, medianMs, baselineMedianMs, ratio: value, verdict, response }) => ({ name, medianMs, baselineMedianMs, ratio: value, verdict, response }));

/** The table of those cold starts against the baseline and the target. */
export const renderColdRows = (rows: readonly ColdRow[], target: number): string =>
  renderTable(
    ['Function', 'Cold ms p50', 'Baseline ms', 'Ratio', `<=${target}x`, 'Response'],
    rows.map((fn) => [fn.name, ms(fn.medianMs, 0), ms(fn.baselineMedianMs, 0), ratio(fn.ratio), fn.verdict, fn.response]),
  );
