// Local stack: the fault mode's rule engine. Rules (a profile of fault-profiles.json, a JSON file, or a runtime PUT)
// say which calls fail and how: by service, operation, calling function, probability, the n-th matching call and a
// maximum count, with a seeded PRNG so that one seed and one sequence of calls give the same faults. Each injection
// point (the IAM edge for AWS calls, the function host for invocations, the event source mappings for deliveries,
// the scheduler for firings) asks `decide` with the effects it can produce; a rule whose effect the point cannot
// produce is not counted there. Every fired fault is logged as one line and kept for `GET <faultsEndpoint>/log`.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { repoRoot } from './lambda-runtime';
import { seededRandom } from './seeded-random';
import { isJsonObject } from '#shared/openapi/types';

export const faultServices = ['dynamodb', 'sqs', 'kms', 'secretsmanager', 'scheduler', 'lambda', 'apigateway'] as const;
export type FaultService = (typeof faultServices)[number];

export type FaultEffect =
  /**
   * An AWS error reply: `code` (`ThrottlingException`, `InternalServerError`, ...), its status unless given. With
   * `forward`, the call is forwarded and lands first, and its answer is the error all the same (AWS documents that a
   * write answered 500 may have been applied).
   */
  | { readonly type: 'error'; readonly code: string; readonly status?: number; readonly message?: string; readonly forward?: boolean }
  /** DynamoDB: TransactionCanceledException with a TransactionConflict reason (TransactionConflictException for a single write). */
  | { readonly type: 'transaction-conflict' }
  /**
   * DynamoDB: TransactionCanceledException with a ThrottlingError reason (the table's or an index's capacity; the SDK
   * does not retry it); a single write gets ThrottlingException, which it does.
   */
  | { readonly type: 'transaction-throttled' }
  /** The call is held this long before it is forwarded. */
  | { readonly type: 'latency'; readonly ms: number }
  /** The call is never answered (`forward`: it is forwarded and lands, only its answer never comes). */
  | { readonly type: 'hang'; readonly forward?: boolean }
  /** The call is forwarded and answered upstream, then the calling function's process is killed before it reads the answer. */
  | { readonly type: 'commit-then-crash' }
  /** DynamoDB Query on a GSI: items written in the last `ms` are not in the answer. */
  | { readonly type: 'index-lag'; readonly ms: number }
  /**
   * DynamoDB BatchGetItem or BatchWriteItem of two entries or more: half of them (the first, at least one) is
   * processed, the rest is answered as UnprocessedKeys / UnprocessedItems, and what was read comes back in another
   * order (edge-faults.ts `partialBatchOf`).
   */
  | { readonly type: 'unprocessed' }
  /**
   * SQS delivery: the batch is delivered twice (two concurrent invocations); with `ms`, the second `ms` after the first
   * (the visibility timeout ran out while the first still worked, and the message was received again).
   */
  | { readonly type: 'duplicate'; readonly ms?: number }
  /** SQS delivery: the batch is delivered `ms` late. */
  | { readonly type: 'delay'; readonly ms: number }
  /** SQS delivery: the batch's records in reverse order. */
  | { readonly type: 'reorder' }
  /** Lambda: the function's process dies (before the invocation runs, after it answered, or after its writes, before its answer). */
  | { readonly type: 'crash'; readonly when: 'before-first-call' | 'between-calls' | 'after-last-write' }
  /** Lambda: the invocation times out (after `ms`, default the function's timeout); its process is reset. */
  | { readonly type: 'timeout'; readonly ms?: number }
  /**
   * Lambda: the invocation is throttled (TooManyRequestsException, "Rate Exceeded": the function's reserved
   * concurrency or the account's is in use); nothing of it runs and no environment starts. API Gateway answers its
   * INTEGRATION_FAILURE response; an event source mapping's batch comes back after its visibility timeout.
   * API Gateway (`request`, the caller the operation): the stage's throttle, its THROTTLED response (429, Retry-After)
   * before the authorizer or the function.
   */
  | { readonly type: 'throttle' }
  /** Scheduler: a firing is delivered twice. */
  | { readonly type: 'fire-twice' }
  /** Scheduler: a firing is delivered `ms` late. */
  | { readonly type: 'fire-late'; readonly ms: number }
  /**
   * Scheduler: a delivery attempt of a firing fails (the target refused or did not answer), so the scheduler retries
   * it under the target's RetryPolicy, then dead-letters it. With `landed`, the message reached the queue all the same
   * (its answer was lost): the retry delivers it again, with the next attempt number and the same execution id.
   */
  | { readonly type: 'fire-fails'; readonly landed?: boolean };

export type FaultEffectType = FaultEffect['type'];

export interface FaultRule {
  /** Named in the log line. */
  readonly name: string;
  readonly service: FaultService;
  /** The AWS operation (`TransactWriteItems`, `SendMessage`, `Encrypt`, `GetSecretValue`, `CreateSchedule`), `invoke`, `deliver` or `fire`. */
  readonly operation?: string;
  /** The calling function's name (`paymentPostRefund`; the consumer for `deliver`, the invoked function for `invoke`). */
  readonly caller?: string;
  /** Chance that a matching call fires (default 1), drawn from the seeded PRNG. */
  readonly probability?: number;
  /** Only these matching calls (1-based, counted per rule) fire. */
  readonly nth?: readonly number[];
  /** The rule fires at most this many times. */
  readonly times?: number;
  readonly effect: FaultEffect;
}

export interface FaultRules {
  readonly seed?: number;
  readonly rules: readonly FaultRule[];
}

/** The call an injection point asks about. */
export interface FaultCall {
  readonly service: FaultService;
  readonly operation: string;
  readonly caller?: string;
}

export interface FiredFault extends FaultCall {
  readonly at: string;
  readonly rule: string;
  /** Which matching call of its rule this was (1-based). */
  readonly call: number;
  readonly effect: FaultEffect;
}

/** Where each effect can be injected: the services it applies to. */
const effectServices: Readonly<Record<FaultEffectType, readonly FaultService[]>> = {
  error: ['dynamodb', 'sqs', 'kms', 'secretsmanager', 'scheduler'],
  'transaction-conflict': ['dynamodb'],
  'transaction-throttled': ['dynamodb'],
  latency: ['dynamodb', 'sqs', 'kms', 'secretsmanager', 'scheduler'],
  hang: ['dynamodb', 'sqs', 'kms', 'secretsmanager', 'scheduler'],
  'commit-then-crash': ['dynamodb', 'sqs', 'kms', 'secretsmanager', 'scheduler'],
  'index-lag': ['dynamodb'],
  unprocessed: ['dynamodb'],
  duplicate: ['sqs'],
  delay: ['sqs'],
  reorder: ['sqs'],
  crash: ['lambda'],
  timeout: ['lambda'],
  throttle: ['lambda', 'apigateway'],
  'fire-twice': ['scheduler'],
  'fire-late': ['scheduler'],
  'fire-fails': ['scheduler'],
};

/** The effects of AWS calls at the IAM edge (the other effects belong to deliveries, invocations and firings). */
export const edgeEffects: readonly FaultEffectType[] = ['error', 'transaction-conflict', 'transaction-throttled', 'latency', 'hang', 'commit-then-crash'];
/** The edge's effects for a batch it can process in part. */
export const batchEdgeEffects: readonly FaultEffectType[] = [...edgeEffects, 'unprocessed'];
/** The operations an `unprocessed` effect applies to. */
export const partialBatchOperations: readonly string[] = ['BatchGetItem', 'BatchWriteItem'];
export const deliveryEffects: readonly FaultEffectType[] = ['duplicate', 'delay', 'reorder'];
export const invocationEffects: readonly FaultEffectType[] = ['throttle', 'crash', 'timeout'];
export const firingEffects: readonly FaultEffectType[] = ['fire-twice', 'fire-late', 'fire-fails'];
export const gatewayEffects: readonly FaultEffectType[] = ['throttle'];


/** The 5xx codes, with their statuses (every other code answers 400, unless a rule's `status` says). */
const serverErrorStatuses = new Map<string, number>([
  ['InternalServerError', 500],
  ['InternalServerException', 500],
  ['InternalError', 500],
  ['InternalFailure', 500],
  ['KMSInternalException', 500],
  ['InternalServiceError', 500],
  ['ServiceUnavailable', 503],
  ['ServiceUnavailableException', 503],
  ['DependencyTimeoutException', 503],
]);

/** Each code's status as its service answers it (a rule's `status` wins; a code not listed answers 400). */
export const faultStatusOf = (service: string, code: string): number => {
  if (code === 'ThrottlingException') return service === 'scheduler' ? 429 : 400;
  return serverErrorStatuses.get(code) ?? 400;
};

const nonNegative = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** Checks a rule file's shape and says what is wrong (the rule's index and name, the field). */
export const parseFaultRules = (input: unknown, origin = 'fault rules'): FaultRules => {
  const fail = (why: string): never => {
    throw new Error(`${origin}: ${why}`);
  };
  if (!isJsonObject(input)) return fail('must be a JSON object {"seed": n, "rules": [...]}');
  if (input.seed !== undefined && !Number.isSafeInteger(input.seed)) fail('seed must be an integer');
  if (!Array.isArray(input.rules)) return fail('rules must be an array');
  const rules = input.rules.map((rule: unknown, index): FaultRule => {
    const at = `rule ${index}${isJsonObject(rule) && typeof rule.name === 'string' ? ` (${rule.name})` : ''}`;
    if (!isJsonObject(rule)) return fail(`${at} must be an object`);
    if (typeof rule.name !== 'string' || rule.name === '' || /\s/.test(rule.name)) fail(`${at}: name must be a non-empty word`);
    if (!faultServices.includes(rule.service as FaultService)) fail(`${at}: service must be one of ${faultServices.join(', ')}`);
    if (rule.operation !== undefined && typeof rule.operation !== 'string') fail(`${at}: operation must be a string`);
    if (rule.caller !== undefined && typeof rule.caller !== 'string') fail(`${at}: caller must be a string`);
    if (rule.probability !== undefined && !(nonNegative(rule.probability) && rule.probability <= 1)) fail(`${at}: probability must be within 0..1`);
    if (rule.nth !== undefined && !(Array.isArray(rule.nth) && rule.nth.every((n) => Number.isSafeInteger(n) && (n as number) >= 1))) {
      fail(`${at}: nth must be a list of call numbers from 1`);
    }
    if (rule.times !== undefined && !(Number.isSafeInteger(rule.times) && (rule.times as number) >= 1)) fail(`${at}: times must be a positive integer`);
    const effect = rule.effect;
    if (!isJsonObject(effect) || typeof effect.type !== 'string' || !Object.hasOwn(effectServices, effect.type)) {
      return fail(`${at}: effect.type must be one of ${Object.keys(effectServices).join(', ')}`);
    }
    const type = effect.type as FaultEffectType;
    if (!effectServices[type].includes(rule.service as FaultService)) fail(`${at}: effect ${type} applies to ${effectServices[type].join(', ')}, not ${String(rule.service)}`);
    if (type === 'error') {
      if (typeof effect.code !== 'string' || !/^[A-Za-z.]+$/.test(effect.code)) fail(`${at}: an error effect needs a code (ThrottlingException, InternalServerError, ...)`);
      if (effect.status !== undefined && !(Number.isInteger(effect.status) && (effect.status as number) >= 400 && (effect.status as number) <= 599)) fail(`${at}: status must be 4xx or 5xx`);
      if (effect.message !== undefined && typeof effect.message !== 'string') fail(`${at}: message must be a string`);
      if (effect.forward !== undefined && typeof effect.forward !== 'boolean') fail(`${at}: forward must be true or false`);
      // AWS answers a request it applied with a 5xx at most (a 4xx refuses it whole, and the SDK resends a throttle).
      const status = typeof effect.status === 'number' ? effect.status : faultStatusOf(String(rule.service), String(effect.code));
      if (effect.forward === true && status < 500) fail(`${at}: forward applies to a 5xx error (a write answered ${status} was not applied)`);
    }
    if (type === 'unprocessed' && rule.operation !== undefined && !partialBatchOperations.includes(rule.operation as string)) {
      fail(`${at}: an unprocessed effect applies to ${partialBatchOperations.join(' and ')}, not ${String(rule.operation)}`);
    }
    if (type === 'fire-fails' && effect.landed !== undefined && typeof effect.landed !== 'boolean') fail(`${at}: landed must be true or false`);
    if ((type === 'latency' || type === 'index-lag' || type === 'delay' || type === 'fire-late') && !nonNegative(effect.ms)) fail(`${at}: a ${type} effect needs ms`);
    if ((type === 'timeout' || type === 'duplicate') && effect.ms !== undefined && !nonNegative(effect.ms)) fail(`${at}: ms must be a number of milliseconds`);
    if (type === 'hang' && effect.forward !== undefined && typeof effect.forward !== 'boolean') fail(`${at}: forward must be true or false`);
    if (type === 'crash' && !['before-first-call', 'between-calls', 'after-last-write'].includes(effect.when as string)) {
      fail(`${at}: a crash effect needs when: before-first-call, between-calls or after-last-write`);
    }
    return rule as unknown as FaultRule;
  });
  const names = rules.map((rule) => rule.name);
  const repeated = names.find((name, index) => names.indexOf(name) !== index);
  if (repeated) fail(`two rules are named ${repeated}`);
  return { ...(input.seed !== undefined ? { seed: input.seed as number } : {}), rules };
};

/** The named profiles (`npm start -- --faults flaky`). */
export const faultProfilesFile = resolve(repoRoot, 'infra/local/fault-profiles.json');

export const faultProfiles = (): Readonly<Record<string, unknown>> => JSON.parse(readFileSync(faultProfilesFile, 'utf8')) as Record<string, unknown>;

/** A profile name of fault-profiles.json, or a path to a rule file (relative to the working directory). */
export const loadFaultRules = (profileOrFile: string, cwd = process.cwd()): FaultRules => {
  const profiles = faultProfiles();
  if (Object.hasOwn(profiles, profileOrFile)) return parseFaultRules(profiles[profileOrFile], `fault profile ${profileOrFile}`);
  const path = resolve(cwd, profileOrFile);
  if (!existsSync(path)) {
    throw new Error(`--faults ${profileOrFile}: neither a profile (${Object.keys(profiles).join(', ')}) nor a file`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`--faults ${profileOrFile}: not JSON (${(error as Error).message})`);
  }
  return parseFaultRules(parsed, profileOrFile);
};

/** `error code=ThrottlingException`, `latency ms=200`, `crash when=after-last-write`. */
export const describeEffect = (effect: FaultEffect): string =>
  [effect.type, ...Object.entries(effect).filter(([key]) => key !== 'type').map(([key, value]) => `${key}=${String(value)}`)].join(' ');

/** The log line of a fired fault: `[fault] <rule> <service>.<operation> caller=<fn> -> <effect>`. */
export const faultLogLine = (fired: FiredFault): string =>
  `[fault] ${fired.rule} ${fired.service}.${fired.operation} caller=${fired.caller ?? '-'} -> ${describeEffect(fired.effect)}`;

export const defaultFaultSeed = 1;

/** Fired faults kept for GET /log (the oldest are dropped past this). */
const keptLogEntries = 10_000;

export class FaultEngine {
  private rules: readonly FaultRule[] = [];
  private matched = new Map<string, number>();
  private fired = new Map<string, number>();
  private random: () => number = seededRandom(defaultFaultSeed);
  private seed = defaultFaultSeed;
  private readonly entries: FiredFault[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(
    rules: FaultRules = { rules: [] },
    private readonly log: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
    seedOverride?: number,
  ) {
    this.setRules(rules, seedOverride);
  }

  /** Replaces the rules: the counters start again and the PRNG restarts from the rules' seed (or the given one). */
  setRules(rules: FaultRules, seedOverride?: number): void {
    this.rules = rules.rules;
    this.seed = seedOverride ?? rules.seed ?? defaultFaultSeed;
    this.random = seededRandom(this.seed);
    this.matched = new Map();
    this.fired = new Map();
    for (const listener of this.listeners) listener();
  }

  clear(): void {
    this.setRules({ rules: [] });
  }

  current(): FaultRules {
    return { seed: this.seed, rules: this.rules };
  }

  /** Called whenever the rules change (the edge starts or stops remembering writes for index lag). */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  /** Whether any rule has an effect of this type (an injection point that costs something only does it then). */
  has(type: FaultEffectType, service?: FaultService): boolean {
    return this.rules.some((rule) => rule.effect.type === type && (service === undefined || rule.service === service));
  }

  /**
   * The fault to inject into this call, if any: the first rule (in order) that matches the call and whose effect
   * this point produces, and whose n-th call, remaining count and probability let it fire. Every matching rule's
   * count advances, fired or not; a PRNG draw is taken only for a rule with a probability below 1.
   */
  decide(call: FaultCall, effects: readonly FaultEffectType[]): FiredFault | undefined {
    let chosen: FiredFault | undefined;
    for (const rule of this.rules) {
      if (rule.service !== call.service || !effects.includes(rule.effect.type)) continue;
      if (rule.operation !== undefined && rule.operation !== call.operation) continue;
      if (rule.caller !== undefined && rule.caller !== call.caller) continue;
      const count = (this.matched.get(rule.name) ?? 0) + 1;
      this.matched.set(rule.name, count);
      if (chosen) continue;
      if (rule.nth !== undefined && !rule.nth.includes(count)) continue;
      if (rule.times !== undefined && (this.fired.get(rule.name) ?? 0) >= rule.times) continue;
      if (rule.probability !== undefined && rule.probability < 1 && this.random() >= rule.probability) continue;
      this.fired.set(rule.name, (this.fired.get(rule.name) ?? 0) + 1);
      chosen = { at: new Date().toISOString(), rule: rule.name, ...call, call: count, effect: rule.effect };
    }
    if (chosen) {
      this.entries.push(chosen);
      if (this.entries.length > keptLogEntries) this.entries.shift();
      this.log(faultLogLine(chosen));
    }
    return chosen;
  }

  /** Every fault fired since the start (or the last `clearLog`), oldest first. */
  firedFaults(): readonly FiredFault[] {
    return [...this.entries];
  }

  clearLog(): void {
    this.entries.length = 0;
  }
}
