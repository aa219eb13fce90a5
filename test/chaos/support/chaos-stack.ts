// Chaos tier: one local stack per test file, in memory, on free ports, started with its fault engine under runtime
// control, so faults never touch the shared stack the other e2e files use. The file's environment points the test
// helpers (http.ts, local-endpoints.ts, tenant-items.ts ...) at it. Each cell sets its rules (the seed fixed), runs
// its flow, clears the rules, asks the engine how often the cell's faults fired, checks the flow's invariant, sends
// every keyed request that ended 2xx again (its answer must be the first, byte for byte), records the verdict for the
// table and fails when the flow did not survive.
import { afterAll, beforeAll, expect } from '@jest/globals';
import { SetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { join } from 'node:path';
import type { FaultRule } from '#infra/local/faults';
import { clearFaults, firedFaults, setFaults } from '#test/support/faults';
import { localSqsClient } from '#test/support/local-endpoints';
import { repoRoot, spawnLocalStack, type LocalStackProcess } from '#test/support/local-stack-process';
import { stackEnvironment } from '#test/support/stack-environment';
import { mergeFindings, outcomeOf, recordCell, type Findings } from './cells';
import { answerCounts, replayBreaches, type Sent } from './requests';
import { retryingClient } from './retrying-client';

export interface ChaosStackOptions {
  /**
   * Visibility timeouts (seconds) by queue logical name (`Payments`, `DocumentEvents`...). The template's are 181 s
   * (six times the consumer's timeout, AWS's rule); a message a crashed consumer held would come back only then.
   * The tier shortens the queues it crashes consumers of, keeping each above what its consumer needs (a task-runs
   * publication lease is 30 s, so that queue keeps more than 30 s). The redeliveries this makes are faults the
   * service must survive anyway (at-least-once delivery).
   */
  readonly visibilityTimeouts?: Readonly<Record<string, number>>;
}

export interface CellRun {
  /** The flow's result: what its invariant checker found, and the logical requests it sent (with their answers). */
  readonly findings: Findings;
  readonly sent: readonly Sent[];
}

export interface Cell<T> {
  readonly flow: string;
  readonly fault: string;
  readonly seed: number;
  readonly rules: readonly FaultRule[];
  readonly run: () => Promise<T>;
  readonly check: (sent: T) => Promise<CellRun>;
  /**
   * The invariant waits on something the design delays (a queued refund's guarantee, 60 s; a Pending task's retry,
   * 30 s; a redelivery after the visibility timeout): checked by `checkDeferred` at the end of the file, while the
   * other cells run. The faults are still only those that fired while the cell's rules were set.
   */
  readonly deferCheck?: boolean;
}

export interface ChaosStack {
  /** The stack (after beforeAll). */
  readonly stack: () => LocalStackProcess;
  readonly logFile: string;
  /**
   * Runs one cell: `rules` (named after the cell) are set with `seed`; `run` sends the flow's requests and waits
   * for what they set off (queues drained); the rules are cleared; `check` holds the flow's invariant over the table
   * and the answers. Records the verdict; fails unless the flow survived and a fault fired.
   */
  cell<T>(cell: Cell<T>): Promise<void>;
  /**
   * Runs cells at once, on one set of rules (each cell's rules, named after it; one seed): for flows that wait on
   * the clock (a schedule's next minute), so that they share the wait. A cell's rules may then hit another cell's
   * flow too; each cell is judged by its own invariant and counts only its own faults.
   */
  cells(cells: readonly Cell<unknown>[], seed: number): Promise<void>;
  /** Checks the deferred cells (the file's last test); fails unless each survived. */
  checkDeferred(): Promise<void>;
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

export const chaosStack = (name: string, options: ChaosStackOptions = {}): ChaosStack => {
  const logFile = join(repoRoot, '.local', `chaos-${name}-${process.pid}.log`);
  let stack: LocalStackProcess | undefined;
  beforeAll(async () => {
    stack = await spawnLocalStack({ logFile, faults: 'control' });
    Object.assign(process.env, stackEnvironment(stack.ready, logFile));
    const sqs = localSqsClient();
    try {
      for (const [queue, seconds] of Object.entries(options.visibilityTimeouts ?? {})) {
        const QueueUrl = stack.ready.queueUrls[queue];
        if (!QueueUrl) throw new Error(`the stack has no queue ${queue}`);
        await sqs.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { VisibilityTimeout: String(seconds) } }));
      }
    } finally {
      sqs.destroy();
    }
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const endpoint = (): string => {
    const faultsEndpoint = stack?.ready.faultsEndpoint;
    if (!faultsEndpoint) throw new Error('the chaos stack has no faults endpoint (started without its fault engine?)');
    return faultsEndpoint;
  };

  interface Ran {
    readonly cell: Cell<unknown>;
    readonly sent: unknown;
    readonly seed: number;
    readonly ranFor: number;
    readonly count: number;
  }
  const deferred: Ran[] = [];
  /** Checks each cell's invariant, records its verdict and fails unless every one survived. */
  const judge = async (ran: readonly Ran[]) => {
    const verdicts = [];
    for (const { cell, sent, seed, ranFor, count } of ran) {
      const checking = Date.now();
      const checked = await cell.check(sent);
      // Then every keyed request that ended 2xx is sent again: it must answer what it answered first.
      const replays = await replayBreaches(checked.sent, retryingClient(seed));
      const result = { ...checked, findings: mergeFindings(checked.findings, { doubled: [], lost: [], violated: replays.breaches }) };
      const outcome = outcomeOf(result.findings, count);
      const seconds = Math.round((ranFor + Date.now() - checking) / 1000);
      recordCell({ flow: cell.flow, fault: cell.fault, seed, outcome, fired: count, findings: result.findings, requests: result.sent.length, answers: answerCounts(result.sent), seconds, replayed: replays.replayed });
      verdicts.push({ flow: cell.flow, fault: cell.fault, outcome, findings: result.findings });
    }
    expect(verdicts).toEqual(ran.map(({ cell }) => ({ flow: cell.flow, fault: cell.fault, outcome: 'survived', findings: { doubled: [], lost: [], violated: [] } })));
  };

  return {
    stack: () => {
      if (!stack) throw new Error('the chaos stack is not started yet (use it inside a test)');
      return stack;
    },
    logFile,
    async cell(cell) {
      await this.cells([cell as Cell<unknown>], cell.seed);
    },
    async cells(cells, seed) {
      // Rule names are words: the cell's flow and fault, slugged, then the rule's own name.
      const prefixOf = (cell: Cell<unknown>) => `${slug(cell.flow)}.${slug(cell.fault)}.`;
      const started = Date.now();
      await setFaults(endpoint(), { seed, rules: cells.flatMap((cell) => cell.rules.map((rule) => ({ ...rule, name: `${prefixOf(cell)}${rule.name}` }))) });
      let sent: unknown[];
      try {
        sent = await Promise.all(cells.map((cell) => cell.run()));
      } finally {
        await clearFaults(endpoint());
      }
      const fired = await firedFaults(endpoint());
      const ranFor = Date.now() - started;
      const judged = cells.map((cell, index) => ({ cell, sent: sent[index], seed, ranFor, count: fired.filter((entry) => entry.rule.startsWith(prefixOf(cell))).length }));
      deferred.push(...judged.filter(({ cell }) => cell.deferCheck));
      await judge(judged.filter(({ cell }) => !cell.deferCheck));
    },
    async checkDeferred() {
      await judge(deferred.splice(0));
    },
  };
};
