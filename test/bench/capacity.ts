// Benchmark: consumed capacity of whatever a DynamoDB client sends, without touching the code that sends it. A
// middleware on the client's stack asks for ReturnConsumedCapacity=TOTAL on every command while metering is on and
// adds up the ConsumedCapacity of each answer (an object, or an array for transactions and batch operations).
import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';

const readCommands = new Set(['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand', 'ScanCommand', 'TransactGetItemsCommand']);

export interface CommandCapacity {
  requests: number;
  units: number;
  /** Requests that failed (conditional check, cancelled transaction): the SDK reports no capacity for them. */
  failed: number;
}

export interface CapacityTotals {
  readonly requests: number;
  readonly failedRequests: number;
  /** As DynamoDB Local reports them (it models DynamoDB's rules, transactions at twice the units, approximately). */
  readonly readUnits: number;
  readonly writeUnits: number;
  readonly byCommand: Readonly<Record<string, CommandCapacity>>;
}

/** The part of a smithy client this needs: its middleware stack. */
interface WithMiddlewareStack {
  readonly middlewareStack: { add(middleware: never, options: { step: 'serialize'; priority: 'high'; name: string }): void };
}

type Next = (args: { input: Record<string, unknown> }) => Promise<{ output: unknown }>;
type Middleware = (next: Next, context: { commandName?: string }) => Next;

const unitsOf = (consumed: ConsumedCapacity | ConsumedCapacity[] | undefined): number =>
  (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);

export interface CapacityMeter {
  /** Runs `work` with metering on and returns what it consumed (other metered work at the same time counts too). */
  measure<T>(work: () => Promise<T>): Promise<{ value: T; capacity: CapacityTotals }>;
  start(): void;
  stop(): CapacityTotals;
}

export const attachCapacityMeter = (client: WithMiddlewareStack): CapacityMeter => {
  let enabled = false;
  let byCommand: Record<string, CommandCapacity> = {};
  const entry = (name: string) => (byCommand[name] ??= { requests: 0, units: 0, failed: 0 });

  const middleware: Middleware = (next, context) => async (args) => {
    if (!enabled) return next(args);
    const name = context.commandName ?? 'UnknownCommand';
    args.input.ReturnConsumedCapacity = 'TOTAL';
    try {
      const result = await next(args);
      const counted = entry(name);
      counted.requests += 1;
      counted.units += unitsOf((result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity);
      return result;
    } catch (error) {
      const counted = entry(name);
      counted.requests += 1;
      counted.failed += 1;
      throw error;
    }
  };
  // Serialize step, high priority: after lib-dynamodb has marshalled the input, before it is serialized.
  client.middlewareStack.add(middleware as never, { step: 'serialize', priority: 'high', name: 'benchConsumedCapacity' });

  const totals = (): CapacityTotals => {
    let readUnits = 0;
    let writeUnits = 0;
    let requests = 0;
    let failedRequests = 0;
    for (const [name, counted] of Object.entries(byCommand)) {
      requests += counted.requests;
      failedRequests += counted.failed;
      if (readCommands.has(name)) readUnits += counted.units;
      else writeUnits += counted.units;
    }
    return {
      requests,
      failedRequests,
      readUnits,
      writeUnits,
      byCommand: Object.fromEntries(Object.entries(byCommand).map(([name, counted]) => [name, { ...counted }])),
    };
  };

  const start = () => {
    byCommand = {};
    enabled = true;
  };
  const stop = () => {
    enabled = false;
    return totals();
  };
  return {
    start,
    stop,
    async measure(work) {
      start();
      try {
        const value = await work();
        return { value, capacity: totals() };
      } finally {
        enabled = false;
      }
    },
  };
};
