// Test support for the data-kit integration tests: a table context on DynamoDB Local (after the loopback check), a
// tenant of the test's own, and strongly consistent reads of what the table holds.
import { afterAll, expect } from '@jest/globals';
import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, type TableContext } from '#shared/data/client';
import { tenantPartition, type ItemKey } from '#shared/data/partition';
import { localDynamoDbClient, requireLocalEndpoints } from '#test/support/local-endpoints';

export { freshTenantId } from '#test/support/tenant-items';

/** The local table, closed after the file's tests. */
export const openLocalTable = (): TableContext => {
  const { tableName } = requireLocalEndpoints();
  const raw = localDynamoDbClient();
  afterAll(() => raw.destroy());
  return { client: createDocumentClient(raw), tableName };
};

export const storedItem = async ({ client, tableName }: TableContext, key: ItemKey) =>
  (await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

/** Every item of the tenant's partition, by sort key. */
export const tenantItems = async ({ client, tableName }: TableContext, tenantId: number) =>
  (
    await client.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': tenantPartition(tenantId) },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

/** What a rejected call threw: its class name, status and detail. */
export const failureOf = async (pending: Promise<unknown>) => {
  try {
    await pending;
  } catch (error) {
    const { name, status, detail } = error as { name: string; status?: number; detail?: string };
    return { name, ...(status !== undefined ? { status } : {}), ...(detail !== undefined ? { detail } : {}) };
  }
  throw new Error('expected the call to fail, but it succeeded');
};

/** How a write meets its fault: committed, then the process died (the call never settles) or the answer was lost. */
export type CommitFault = 'dies-after-commit' | 'throws-after-commit';

/** A function process that never answers: what a client sees of a process killed after its write was sent. */
const never = new Promise<never>(() => undefined);

/**
 * Wraps a store's `write` so that its next call (with `fault`) commits, then dies (never settles) or fails as a lost
 * answer (ECONNRESET); later calls pass through. `committed` settles once that write committed, so a test waits for
 * the commit, not for a time.
 */
export const faultAfterCommit = <A extends unknown[], R>(write: (...args: A) => Promise<R>, fault?: CommitFault) => {
  let armed = fault !== undefined;
  let signal: () => void = () => undefined;
  const committed = new Promise<void>((resolve) => {
    signal = resolve;
  });
  return {
    committed,
    write: async (...args: A): Promise<R> => {
      const result = await write(...args);
      if (!armed) return result;
      armed = false;
      signal();
      if (fault === 'dies-after-commit') return never;
      throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    },
  };
};

export interface SentCommand {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

/**
 * The local table, with every command sent through it recorded in `sent` (a spy, not a mock: each one is sent), and
 * chosen commands cut off as a function's death would cut them: before they arrive (`crashWhen`), or after they
 * applied, their answer lost (`loseAnswerWhen`).
 */
export const openRecordedTable = () => {
  const table = openLocalTable();
  const sent: SentCommand[] = [];
  let failAt: ((command: SentCommand) => boolean) | undefined;
  let loseAnswerAt: ((command: SentCommand) => boolean) | undefined;
  const crash = () => Object.assign(new Error('injected crash'), { name: 'InjectedCrash' });
  const client = {
    send: (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
      const entry = { name: command.constructor.name, input: command.input };
      if (failAt?.(entry)) return Promise.reject(crash());
      sent.push(entry);
      const answer = table.client.send(command as never);
      // Sent and applied, its answer lost: the function died after the request reached DynamoDB.
      return loseAnswerAt?.(entry) ? answer.then(() => Promise.reject(crash())) : answer;
    },
  } as unknown as DynamoDBDocumentClient;
  const recorded: TableContext = { client, tableName: table.tableName };
  return {
    table,
    recorded,
    sent,
    /** Makes the commands `when` picks fail before they reach DynamoDB (a function crashing mid-save). */
    crashWhen: (when: ((command: SentCommand) => boolean) | undefined) => {
      failAt = when;
    },
    /** Makes the commands `when` picks reach DynamoDB, then fail as if the function died before their answer came. */
    loseAnswerWhen: (when: ((command: SentCommand) => boolean) | undefined) => {
      loseAnswerAt = when;
    },
  };
};

/** A write request: what a function's death can cut off before or after it applies. */
export const isWriteCommand = (command: { readonly name: string }): boolean => /^(TransactWrite|Put|Update|Delete)Command$/.test(command.name);

/**
 * Runs `work` over `tables` with its `kill`-th write request cut off (`before`: it never arrives; `after`: it applies
 * and its answer is lost); undefined: undisturbed. Resolves to the number of write requests sent (the cut one
 * included) and whether `work` resolved.
 */
export const runKilledAt = async (
  tables: ReturnType<typeof openRecordedTable>,
  work: () => Promise<unknown>,
  kill?: KillPoint,
): Promise<{ readonly writes: number; readonly answered: boolean }> => {
  let writes = 0;
  // Counts every write request; picks the `kill`-th (none when undisturbed).
  const picks = (command: SentCommand): boolean => isWriteCommand(command) && ++writes === kill?.at;
  if (kill?.mode === 'before') tables.crashWhen(picks);
  else tables.loseAnswerWhen(picks);
  try {
    await work();
    return { writes, answered: true };
  } catch {
    return { writes, answered: false };
  } finally {
    tables.crashWhen(undefined);
    tables.loseAnswerWhen(undefined);
  }
};

export interface KillPoint {
  readonly at: number;
  readonly mode: 'before' | 'after';
}

/**
 * A keyed write killed at each of its write requests in turn, before the request arrives and after it applied: first
 * undisturbed (to count its writes), then once per kill point on a fresh `setUp`, each followed by a retry with the
 * same key, undisturbed; `check` judges the retry's answer, and a second retry must replay it byte for byte.
 */
export const atEveryKillPoint = async <State, Answer>(options: {
  readonly setUp: () => Promise<State>;
  /** The write over the recorded table, its `kill`-th write request cut off (none: undisturbed). */
  readonly killed: (state: State, key: string, kill?: KillPoint) => Promise<{ readonly writes: number }>;
  readonly retry: (state: State, key: string) => Promise<Answer>;
  readonly check: (state: State, retried: Answer, point: KillPoint) => Promise<void>;
}): Promise<void> => {
  const { writes } = await options.killed(await options.setUp(), 'undisturbed');
  // A write that sends no write request has no kill point: the harness would prove nothing.
  expect(writes).toBeGreaterThan(0);
  const points = Array.from({ length: writes }, (_, index) => index + 1).flatMap((at) => (['before', 'after'] as const).map((mode) => ({ at, mode })));
  for (const point of points) {
    const state = await options.setUp();
    const key = `killed-${point.at}-${point.mode}`;
    await options.killed(state, key, point);
    const retried = await options.retry(state, key);
    await options.check(state, retried, point);
    expect({ ...point, replay: JSON.stringify(await options.retry(state, key)) }).toEqual({ ...point, replay: JSON.stringify(retried) });
  }
};
