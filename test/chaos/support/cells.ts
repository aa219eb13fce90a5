// Chaos tier: the verdict of one cell (a flow run under one fault) and the table of every cell of a run. Each test
// file appends its cells to a file of the run's results folder (CHAOS_RESULTS_DIR, set by the tier's global setup);
// the tier's global teardown reads them all and prints the table, flow x fault -> survived / lost / doubled. Nothing
// in the table is written by hand: a cell is what its invariant checker found in that run.
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What an invariant checker found: each list holds one line per breach, naming the request or item. */
export interface Findings {
  /** An effect applied more than once (a second refund for one key, a location twice...). */
  readonly doubled: readonly string[];
  /** An effect answered 2xx (or owed by the design) that is not there. */
  readonly lost: readonly string[];
  /** Any other broken rule: a 500, a stack trace, a 503 without Retry-After, two defaults, an unsettled refund... */
  readonly violated: readonly string[];
}

export const noFindings: Findings = { doubled: [], lost: [], violated: [] };

export const mergeFindings = (...all: readonly Findings[]): Findings => ({
  doubled: all.flatMap((one) => one.doubled),
  lost: all.flatMap((one) => one.lost),
  violated: all.flatMap((one) => one.violated),
});

export type Outcome = 'survived' | 'doubled' | 'lost' | 'violated' | 'not fired';

export interface CellResult {
  readonly flow: string;
  readonly fault: string;
  readonly seed: number;
  readonly outcome: Outcome;
  /** How many times the cell's faults fired (a cell whose fault never fired proves nothing). */
  readonly fired: number;
  readonly findings: Findings;
  readonly requests: number;
  /** Every answer the clients got, attempts included, by status (`dropped` when none came): how the fault showed. */
  readonly answers: Readonly<Record<string, number>>;
  /** How long the cell took, its checks included (reported for the tier's budget, never asserted). */
  readonly seconds: number;
  /** Keyed requests answered 2xx, sent again after the cell with the same key and body (`replayBreaches`). */
  readonly replayed?: number;
}

/** The worst thing found wins: doubled, then lost, then any other breach; a fault that never fired is no evidence. */
export const outcomeOf = (findings: Findings, fired: number): Outcome =>
  findings.doubled.length > 0
    ? 'doubled'
    : findings.lost.length > 0
      ? 'lost'
      : findings.violated.length > 0
        ? 'violated'
        : fired === 0
          ? 'not fired'
          : 'survived';

const resultsDir = (): string => {
  const dir = process.env.CHAOS_RESULTS_DIR;
  if (!dir) throw new Error('CHAOS_RESULTS_DIR is not set: run the chaos tier through jest (--selectProjects chaos)');
  return dir;
};

/** Appends a cell to its flow's file (one test file per flow: one writer per file). */
export const recordCell = (cell: CellResult): void => {
  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  appendFileSync(join(dir, `${cell.flow.replace(/[^A-Za-z0-9-]+/g, '-')}.jsonl`), `${JSON.stringify(cell)}\n`);
};

export const readCells = (dir: string): CellResult[] =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .flatMap((name) =>
      readFileSync(join(dir, name), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as CellResult),
    );

/** The rows and columns in the issue's order (a flow or fault not listed goes last, in the order first seen). */
const flowOrder = ['Tenant locations', 'Webhook -> queue -> consumer', 'Payments', 'Scheduled tasks (a save)', 'Scheduled tasks (a firing)', 'Delivery receipts'];
const faultOrder = [
  'DynamoDB throttle',
  'transaction conflict',
  'transaction throttled',
  'DynamoDB internal error',
  'DynamoDB latency',
  'DynamoDB stalled (burst of payments)',
  'DynamoDB hang',
  'DynamoDB hang (the commit lands)',
  'commit-then-crash',
  'save commit-then-crash',
  'save commit-then-crash before its completion',
  'payment commit-then-crash',
  'index lag',
  'SQS send refused',
  'SQS send commit-then-crash',
  'duplicate delivery',
  'late delivery',
  'reorder',
  'API Gateway throttle',
  'Lambda throttle',
  'Lambda crash before first call',
  'Lambda crash between calls',
  'Lambda crash after last write',
  'consumer crash after last write',
  'invocation timeout',
  'scheduler fires twice',
  'scheduler fires late',
  'scheduler fires late past an edit',
  'scheduler unavailable',
  'scheduler throttle',
  'scheduler commit-then-crash',
  'KMS unavailable',
  'KMS throttle',
];
const ordered = (values: readonly string[], order: readonly string[]) =>
  [...new Set(values)].sort((a, b) => (order.includes(a) ? order.indexOf(a) : order.length) - (order.includes(b) ? order.indexOf(b) : order.length));

/** The table as Markdown: one row per flow, one column per fault, `–` where the fault cannot touch the flow. */
export const renderTable = (cells: readonly CellResult[]): string => {
  const flows = ordered(cells.map((cell) => cell.flow), flowOrder);
  const faults = ordered(cells.map((cell) => cell.fault), faultOrder);
  const at = (flow: string, fault: string) => cells.find((cell) => cell.flow === flow && cell.fault === fault);
  const lines = [`| Flow | ${faults.join(' | ')} |`, `|---|${faults.map(() => '---').join('|')}|`];
  for (const flow of flows) lines.push(`| ${flow} | ${faults.map((fault) => at(flow, fault)?.outcome ?? '–').join(' | ')} |`);
  return lines.join('\n');
};

/** One line per cell: the faults fired and the answers they made the clients see. */
export const renderAnswers = (cells: readonly CellResult[]): string =>
  cells
    .map(
      (cell) =>
        `- ${cell.flow} x ${cell.fault} (seed ${cell.seed}): ${cell.fired} faults fired; answers ${Object.entries(cell.answers)
          .map(([status, count]) => `${status} x${count}`)
          .join(', ')}${cell.replayed ? `; ${cell.replayed} replayed with their keys` : ''}; ${cell.seconds} s`,
    )
    .join('\n');

/** Every cell that did not survive, with what its checker found (the lines a defect report needs). */
export const renderFindings = (cells: readonly CellResult[]): string =>
  cells
    .filter((cell) => cell.outcome !== 'survived')
    .map((cell) =>
      [
        `- ${cell.flow} x ${cell.fault} (seed ${cell.seed}, ${cell.requests} requests, ${cell.fired} faults fired): ${cell.outcome}`,
        ...[...cell.findings.doubled.map((line) => `doubled: ${line}`), ...cell.findings.lost.map((line) => `lost: ${line}`), ...cell.findings.violated.map((line) => `violated: ${line}`)]
          .slice(0, 8)
          .map((line) => `    ${line}`),
      ].join('\n'),
    )
    .join('\n');
