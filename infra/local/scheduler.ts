// Local stack: EventBridge Scheduler, as far as the functions and tests can tell. An HTTP server that speaks the
// Scheduler API the AWS SDK uses (REST-JSON: CreateSchedule, UpdateSchedule, GetSchedule, DeleteSchedule,
// ListSchedules), keeps schedules in memory (and, on a persistent stack, in `.local/scheduler/`, so that they outlive
// a stop as the tasks in the table do), and at each due time delivers the schedule's Input (context attributes
// replaced) to its SQS target, as the schedule's execution role: the role's statements must allow it, as on AWS.
// Firing times come from infra/local/scheduler-expressions.ts. The clock is injected: `fireDue()` delivers every
// firing due by the clock's now (the stack calls it every second; tests advance their clock and call it). Functions
// reach it through the IAM edge (iam-edge.ts), which enforces their manageSchedules grant.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { PolicyStatement } from '#shared/operations/grants';
import {
  expressionZone,
  InvalidScheduleExpression,
  nextFiring,
  parseScheduleExpression,
  type FiringSchedule,
} from '#infra/local/scheduler-expressions';
import { firingEffects, type FaultEngine } from './faults';
import { statementsAllow } from './iam-edge';
import { closeServer, listen, localAccountId, localRegion, readRequestBody } from './local-aws';
import { join } from 'node:path';
import { isJsonObject } from '#shared/openapi/types';

/** A schedule as the API describes it (GetSchedule's members; dates as Date). */
export interface EmulatedSchedule {
  readonly Arn: string;
  readonly Name: string;
  readonly GroupName: string;
  readonly ScheduleExpression: string;
  readonly ScheduleExpressionTimezone?: string;
  readonly StartDate?: Date;
  readonly EndDate?: Date;
  readonly Description?: string;
  readonly State: 'ENABLED' | 'DISABLED';
  readonly KmsKeyArn?: string;
  readonly ActionAfterCompletion: 'NONE' | 'DELETE';
  readonly FlexibleTimeWindow: { readonly Mode: 'OFF' | 'FLEXIBLE'; readonly MaximumWindowInMinutes?: number };
  readonly Target: {
    readonly Arn: string;
    readonly RoleArn: string;
    readonly Input?: string;
    readonly RetryPolicy: { readonly MaximumEventAgeInSeconds: number; readonly MaximumRetryAttempts: number };
    readonly DeadLetterConfig?: { readonly Arn: string };
    readonly [other: string]: unknown;
  };
  readonly CreationDate: Date;
  readonly LastModificationDate: Date;
}

/** What a schedule was made from: the request (less its ClientToken) and when, so a start can read it again. */
interface Definition {
  readonly name: string;
  readonly request: Record<string, unknown>;
  /** Epoch ms of the Create or Update (rate() counts from it; StartDate was checked against it). */
  readonly at: number;
  /** Epoch ms of the Create. */
  readonly created: number;
}

interface Entry {
  schedule: EmulatedSchedule;
  firing: FiringSchedule;
  readonly definition: Definition;
  /** The next firing not yet delivered, or undefined when the schedule fires no more. */
  next: number | undefined;
  /** Set by a start for a schedule that missed firings while stopped: the firing after `next` comes after this. */
  resumeAfter?: number | undefined;
}

/**
 * A firing whose delivery failed: retried with exponential backoff (`retryDelayMs`) until the retry policy gives up,
 * then dead-lettered.
 */
interface Retry {
  readonly schedule: EmulatedSchedule;
  readonly definition: Definition;
  readonly scheduledTime: number;
  readonly executionId: string;
  attempts: number;
  /** When the next attempt is due (epoch ms; 0 for at once). */
  dueAt?: number;
}

/**
 * The wait before retry `attempts + 1` of a failed delivery: EventBridge Scheduler retries with exponential backoff
 * (its documentation gives no figures), here 1 s doubled at each attempt up to a minute: the service's policy (10
 * retries, 300 s) spends about its whole event age, the API's default (185 retries) hours, where one retry per tick
 * dead-lettered a firing after three minutes of a target down.
 */
export const retryDelayMs = (attempts: number): number => Math.min(60_000, 1_000 * 2 ** Math.max(0, attempts - 1));

/** The file a persistent scheduler keeps (schedules.json): written whole, atomically, after every change. */
interface SavedState {
  readonly entries: readonly { readonly definition: Definition; readonly next: number | null }[];
  readonly retries: readonly { readonly definition: Definition; readonly scheduledTime: number; readonly executionId: string; readonly attempts: number; readonly dueAt?: number }[];
  readonly tokens: readonly (readonly [string, string])[];
}

/** Where a firing goes: an SQS queue by ARN (the stack sends to its local queue). */
export type Deliver = (queueArn: string, body: string) => Promise<void>;

export interface SchedulerEmulationOptions {
  /** The schedule groups that exist besides `default` (the stage's group). */
  readonly groups: readonly string[];
  /** Execution roles by ARN, with their statements: a firing is delivered only where its role allows SendMessage. */
  readonly roles: ReadonlyMap<string, readonly PolicyStatement[]>;
  readonly deliver: Deliver;
  /** Epoch milliseconds now; Date.now by default. Tests pass a clock they advance. */
  readonly clock?: () => number;
  /** Calls fireDue() this often (ms); 0 for never (tests call it). Default 1000. */
  readonly tickMs?: number;
  readonly port?: number;
  readonly log?: (line: string) => void;
  /** The fault mode (faults.ts): a firing delivered twice, or late (operation `fire`, caller the schedule's name). */
  readonly faults?: FaultEngine;
  /**
   * A folder to keep the schedules in (a persistent stack's `.local/scheduler`): read at start, written after every
   * change. Without it the schedules live in memory only.
   */
  readonly dataDir?: string;
}

export interface RunningScheduler {
  /** `http://127.0.0.1:<port>`: the upstream of the IAM edge's `scheduler` service. */
  readonly endpoint: string;
  /** Delivers every firing due by the clock's now (and retries failed ones); resolves to the number delivered. */
  fireDue(): Promise<number>;
  /** The schedules held, for tests and tools (the API's GetSchedule/ListSchedules show the same). */
  schedules(): EmulatedSchedule[];
  close(): Promise<void>;
}

const defaultGroup = 'default';
const namePattern = /^[0-9a-zA-Z-_.]{1,64}$/;
/** The scheduler's bound on a target's Input. */
const maxInputLength = 8192;
const maxBodyBytes = 64 * 1024;
/** Firings of one schedule delivered by one fireDue() at most: a clock jumped far ahead catches up over several. */
const maxFiringsPerCall = 1000;
/** Firings of one schedule a start steps over to find the latest it missed while stopped (past them, it goes on from now). */
const maxMissedSteps = 100_000;
/** The API's defaults when a target names no retry policy. */
const defaultRetryPolicy = { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 };

/** An error the API answers, REST-JSON style: the status, `x-amzn-ErrorType`, and `{ "Message": ... }`. */
class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}
const invalid = (message: string) => new ApiError(400, 'ValidationException', message);
const notFound = (message: string) => new ApiError(404, 'ResourceNotFoundException', message);


const optionalString = (input: Record<string, unknown>, key: string, max: number): string | undefined => {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > max) throw invalid(`${key} must be a string of at most ${max} characters.`);
  return value;
};

/** A REST-JSON timestamp: epoch seconds (the SDK's default), or an ISO string. */
const optionalDate = (input: Record<string, unknown>, key: string): Date | undefined => {
  const value = input[key];
  if (value === undefined || value === null) return undefined;
  const date = typeof value === 'number' ? new Date(value * 1000) : typeof value === 'string' ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime())) throw invalid(`${key} must be a timestamp.`);
  return date;
};

const integerIn = (value: unknown, key: string, min: number, max: number): number => {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) throw invalid(`${key} must be an integer from ${min} to ${max}.`);
  return value as number;
};

/** A ClientToken's request, by a digest of everything but the token. */
const digestOf = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');

/** `<aws.scheduler.*>` context attributes in an Input, as the scheduler replaces them. */
const withContext = (input: string, attributes: Readonly<Record<string, string>>): string =>
  input.replace(/<aws\.scheduler\.(scheduled-time|schedule-arn|execution-id|attempt-number)>/g, (placeholder, name: string) => attributes[name] ?? placeholder);

const isoSeconds = (instant: number): string => new Date(instant).toISOString().replace(/\.\d{3}Z$/, 'Z');
const epochSeconds = (date: Date | undefined): number | undefined => (date === undefined ? undefined : date.getTime() / 1000);

export const startSchedulerEmulation = async (options: SchedulerEmulationOptions): Promise<RunningScheduler> => {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const clock = options.clock ?? Date.now;
  const groups = new Set([defaultGroup, ...options.groups]);
  /** By `<group>/<name>`. */
  const entries = new Map<string, Entry>();
  const retries: Retry[] = [];
  /** ClientToken -> the digest of the request it was used with (Create/Update/Delete idempotency). */
  const tokens = new Map<string, string>();
  const keyOf = (group: string, name: string) => `${group}/${name}`;
  const arnOf = (group: string, name: string) => `arn:aws:scheduler:${localRegion}:${localAccountId}:schedule/${group}/${name}`;

  /** Reads and checks a CreateSchedule/UpdateSchedule body against the API's rules. */
  const readDefinition = (name: string, input: Record<string, unknown>, now: number, previous?: Pick<EmulatedSchedule, 'CreationDate'>): { schedule: EmulatedSchedule; firing: FiringSchedule } => {
    if (!namePattern.test(name)) throw invalid('Name must be 1 to 64 letters, digits, -, _ or . characters.');
    const group = optionalString(input, 'GroupName', 64) ?? defaultGroup;
    if (!namePattern.test(group)) throw invalid('GroupName must be 1 to 64 letters, digits, -, _ or . characters.');
    if (!groups.has(group)) throw notFound(`Schedule group ${group} does not exist.`);
    const expressionText = optionalString(input, 'ScheduleExpression', 256);
    if (!expressionText) throw invalid('ScheduleExpression is required.');
    const timeZone = optionalString(input, 'ScheduleExpressionTimezone', 50);
    let expression: FiringSchedule['expression'];
    let zone: FiringSchedule['zone'];
    try {
      expression = parseScheduleExpression(expressionText);
      zone = expressionZone(timeZone);
    } catch (error) {
      if (error instanceof InvalidScheduleExpression) throw invalid(`Invalid Schedule Expression ${expressionText}: ${error.message}`);
      throw error;
    }
    const startDate = optionalDate(input, 'StartDate');
    const endDate = optionalDate(input, 'EndDate');
    if (startDate && startDate.getTime() < now - 5 * 60_000) throw invalid('The StartDate you specify cannot be earlier than 5 minutes ago.');
    if (endDate && endDate.getTime() <= now) throw invalid('The EndDate you specify cannot be earlier than the current time.');
    if (startDate && endDate && endDate <= startDate) throw invalid('The EndDate you specify must be after the StartDate.');
    const state = input.State ?? 'ENABLED';
    if (state !== 'ENABLED' && state !== 'DISABLED') throw invalid('State must be ENABLED or DISABLED.');
    const after = input.ActionAfterCompletion ?? 'NONE';
    if (after !== 'NONE' && after !== 'DELETE') throw invalid('ActionAfterCompletion must be NONE or DELETE.');
    const window = input.FlexibleTimeWindow;
    if (!isJsonObject(window) || (window.Mode !== 'OFF' && window.Mode !== 'FLEXIBLE')) throw invalid('FlexibleTimeWindow with Mode OFF or FLEXIBLE is required.');
    if (window.Mode === 'FLEXIBLE') integerIn(window.MaximumWindowInMinutes, 'FlexibleTimeWindow.MaximumWindowInMinutes', 1, 1440);
    const target = input.Target;
    if (!isJsonObject(target)) throw invalid('Target is required.');
    const targetArn = optionalString(target, 'Arn', 1600);
    const roleArn = optionalString(target, 'RoleArn', 1600);
    if (!targetArn || !roleArn) throw invalid('Target.Arn and Target.RoleArn are required.');
    const targetInput = optionalString(target, 'Input', maxInputLength);
    const retry = target.RetryPolicy === undefined || target.RetryPolicy === null ? defaultRetryPolicy : target.RetryPolicy;
    if (!isJsonObject(retry)) throw invalid('Target.RetryPolicy must be an object.');
    const retryPolicy = {
      MaximumEventAgeInSeconds: integerIn(retry.MaximumEventAgeInSeconds ?? defaultRetryPolicy.MaximumEventAgeInSeconds, 'RetryPolicy.MaximumEventAgeInSeconds', 60, 86_400),
      MaximumRetryAttempts: integerIn(retry.MaximumRetryAttempts ?? defaultRetryPolicy.MaximumRetryAttempts, 'RetryPolicy.MaximumRetryAttempts', 0, 185),
    };
    const deadLetter = target.DeadLetterConfig;
    if (deadLetter !== undefined && deadLetter !== null && (!isJsonObject(deadLetter) || typeof deadLetter.Arn !== 'string')) {
      throw invalid('Target.DeadLetterConfig.Arn must be a queue ARN.');
    }
    const description = optionalString(input, 'Description', 512);
    const kmsKeyArn = optionalString(input, 'KmsKeyArn', 2048);
    const schedule: EmulatedSchedule = {
      Arn: arnOf(group, name),
      Name: name,
      GroupName: group,
      ScheduleExpression: expressionText,
      ...(timeZone !== undefined ? { ScheduleExpressionTimezone: timeZone } : {}),
      ...(startDate ? { StartDate: startDate } : {}),
      ...(endDate ? { EndDate: endDate } : {}),
      ...(description !== undefined ? { Description: description } : {}),
      State: state,
      ...(kmsKeyArn !== undefined ? { KmsKeyArn: kmsKeyArn } : {}),
      ActionAfterCompletion: after,
      FlexibleTimeWindow: { ...(window as EmulatedSchedule['FlexibleTimeWindow']) },
      Target: {
        ...target,
        Arn: targetArn,
        RoleArn: roleArn,
        ...(targetInput !== undefined ? { Input: targetInput } : {}),
        RetryPolicy: retryPolicy,
        ...(isJsonObject(deadLetter) ? { DeadLetterConfig: { Arn: deadLetter.Arn as string } } : {}),
      },
      CreationDate: previous?.CreationDate ?? new Date(now),
      LastModificationDate: new Date(now),
    };
    const firing: FiringSchedule = {
      expression,
      zone,
      ...(startDate ? { startDate: startDate.getTime() } : {}),
      ...(endDate ? { endDate: endDate.getTime() } : {}),
      anchor: now,
    };
    return { schedule, firing };
  };

  /**
   * The ClientToken rule: a token already used for the same request answers as before (true); used for another
   * request, a ConflictException. A token is remembered once its request succeeded (`remember`).
   */
  const replayed = (token: unknown, request: unknown): boolean => {
    if (token === undefined || token === null) return false;
    if (typeof token !== 'string' || !/^[a-zA-Z0-9-_]{1,64}$/.test(token)) throw invalid('ClientToken must be 1 to 64 letters, digits, - or _.');
    const seen = tokens.get(token);
    if (seen === undefined) return false;
    if (seen !== digestOf(request)) throw new ApiError(409, 'ConflictException', 'The ClientToken was already used with a different request.');
    return true;
  };
  const remember = (token: unknown, request: unknown) => {
    if (typeof token === 'string') tokens.set(token, digestOf(request));
  };

  const stateFile = options.dataDir === undefined ? undefined : join(options.dataDir, 'schedules.json');

  /** Writes the schedules, their pending retries and the ClientTokens seen, whole (a kill leaves the last whole file). */
  const save = () => {
    if (stateFile === undefined) return;
    const state: SavedState = {
      entries: [...entries.values()].map((entry) => ({ definition: entry.definition, next: entry.next ?? null })),
      retries: retries.map(({ definition, scheduledTime, executionId, attempts, dueAt }) => ({ definition, scheduledTime, executionId, attempts, ...(dueAt !== undefined ? { dueAt } : {}) })),
      tokens: [...tokens],
    };
    mkdirSync(options.dataDir as string, { recursive: true });
    writeFileSync(`${stateFile}.next`, JSON.stringify(state));
    renameSync(`${stateFile}.next`, stateFile);
  };

  /**
   * The schedules a persistent stack kept, read again as their requests were (a schedule the template no longer
   * allows, its group gone, is said and left out). A stack that was stopped is a scheduler that was down: a schedule
   * whose firings came due meanwhile delivers the latest of them once (an at() its one firing), not one per firing
   * missed, and goes on from there; pending retries go on as they were.
   */
  const load = () => {
    if (stateFile === undefined || !existsSync(stateFile)) return;
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as SavedState;
    const now = clock();
    const read = (definition: Definition) => {
      try {
        return readDefinition(definition.name, definition.request, definition.at, { CreationDate: new Date(definition.created) });
      } catch (error) {
        log(`[scheduler] ${definition.name}: not restored: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
    };
    for (const { definition, next } of state.entries) {
      const readBack = read(definition);
      if (!readBack) continue;
      const entry: Entry = { ...readBack, definition, next: next ?? undefined };
      if (entry.next !== undefined && entry.next <= now && entry.schedule.State === 'ENABLED') {
        let latest = entry.next;
        let missed = 1;
        for (let step = nextFiring(entry.firing, latest); step !== undefined && step <= now && missed < maxMissedSteps; step = nextFiring(entry.firing, latest)) {
          latest = step;
          missed += 1;
        }
        if (missed > 1) log(`[scheduler] ${definition.name}: ${missed} firing(s) came due while the stack was stopped; the latest, ${isoSeconds(latest)}, is delivered`);
        entry.next = latest;
        entry.resumeAfter = now;
      }
      entries.set(keyOf(entry.schedule.GroupName, entry.schedule.Name), entry);
    }
    for (const { definition, scheduledTime, executionId, attempts, dueAt } of state.retries) {
      const readBack = read(definition);
      if (readBack) retries.push({ schedule: readBack.schedule, definition, scheduledTime, executionId, attempts, ...(dueAt !== undefined ? { dueAt } : {}) });
    }
    for (const [token, digest] of state.tokens) tokens.set(token, digest);
    if (entries.size > 0) log(`[scheduler] ${entries.size} schedule(s) restored from ${options.dataDir}`);
  };

  const put = (name: string, body: unknown, create: boolean): { ScheduleArn: string } => {
    if (!isJsonObject(body)) throw invalid('The request body must be a JSON object.');
    const { ClientToken: token, ...request } = body;
    const now = clock();
    const group = typeof request.GroupName === 'string' ? request.GroupName : defaultGroup;
    const key = keyOf(group, name);
    const existing = entries.get(key);
    const idempotent = { operation: create ? 'create' : 'update', name, request };
    if (replayed(token, idempotent)) return { ScheduleArn: arnOf(group, name) };
    if (create && existing) throw new ApiError(409, 'ConflictException', `Schedule ${name} already exists.`);
    if (!create && !existing) throw notFound(`Schedule ${name} does not exist.`);
    const { schedule, firing } = readDefinition(name, request, now, existing?.schedule);
    const definition: Definition = { name, request, at: now, created: schedule.CreationDate.getTime() };
    entries.set(key, { schedule, firing, definition, next: nextFiring(firing, now - 1) });
    remember(token, idempotent);
    save();
    return { ScheduleArn: schedule.Arn };
  };

  const describe = (schedule: EmulatedSchedule): Record<string, unknown> => ({
    ...schedule,
    StartDate: epochSeconds(schedule.StartDate),
    EndDate: epochSeconds(schedule.EndDate),
    CreationDate: epochSeconds(schedule.CreationDate),
    LastModificationDate: epochSeconds(schedule.LastModificationDate),
  });

  const get = (name: string, group: string): Entry => {
    const entry = entries.get(keyOf(group, name));
    if (!entry) throw notFound(`Schedule ${name} does not exist.`);
    return entry;
  };

  const list = (query: URLSearchParams): Record<string, unknown> => {
    const maxText = query.get('MaxResults');
    const max = maxText === null ? 100 : integerIn(Number(maxText), 'MaxResults', 1, 100);
    const offsetText = query.get('NextToken');
    const offset = offsetText === null ? 0 : Number(offsetText);
    if (!Number.isInteger(offset) || offset < 0) throw invalid('NextToken is not valid.');
    const group = query.get('ScheduleGroup');
    const prefix = query.get('NamePrefix') ?? '';
    const state = query.get('State');
    const matching = [...entries.values()]
      .map((entry) => entry.schedule)
      .filter((schedule) => (group === null || schedule.GroupName === group) && schedule.Name.startsWith(prefix) && (state === null || schedule.State === state))
      .sort((a, b) => a.Arn.localeCompare(b.Arn));
    const page = matching.slice(offset, offset + max);
    return {
      Schedules: page.map((schedule) => ({
        Arn: schedule.Arn,
        Name: schedule.Name,
        GroupName: schedule.GroupName,
        State: schedule.State,
        CreationDate: epochSeconds(schedule.CreationDate),
        LastModificationDate: epochSeconds(schedule.LastModificationDate),
        Target: { Arn: schedule.Target.Arn },
      })),
      ...(offset + max < matching.length ? { NextToken: String(offset + max) } : {}),
    };
  };

  const route = (method: string, url: URL, body: unknown): unknown => {
    if (url.pathname === '/schedules' && method === 'GET') return list(url.searchParams);
    const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
    if (!match) throw new ApiError(404, 'UnknownOperationException', 'The local scheduler emulation does not implement this operation.');
    const name = decodeURIComponent(match[1] as string);
    const group = url.searchParams.get('groupName') ?? defaultGroup;
    if (method === 'POST') return put(name, body, true);
    if (method === 'PUT') return put(name, body, false);
    if (method === 'GET') return describe(get(name, group).schedule);
    if (method === 'DELETE') {
      const token = url.searchParams.get('clientToken') ?? undefined;
      const idempotent = { operation: 'delete', name, group };
      if (replayed(token, idempotent)) return {};
      get(name, group);
      entries.delete(keyOf(group, name));
      remember(token, idempotent);
      save();
      return {};
    }
    throw new ApiError(404, 'UnknownOperationException', 'The local scheduler emulation does not implement this operation.');
  };

  const respond = (response: ServerResponse, status: number, payload: unknown, errorType?: string) => {
    const text = JSON.stringify(payload);
    response.writeHead(status, {
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(text)),
      'x-amzn-RequestId': digestOf([Date.now(), Math.random()]).slice(0, 32),
      ...(errorType ? { 'x-amzn-ErrorType': errorType } : {}),
    });
    response.end(text);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const text = (await readRequestBody(request, maxBodyBytes))?.toString('utf8');
    if (text === undefined) return respond(response, 413, { Message: 'Request too large.' }, 'ValidationException');
    try {
      let body: unknown = {};
      if (text !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          throw invalid('The request body is not JSON.');
        }
      }
      const url = new URL(request.url ?? '/', 'http://scheduler');
      respond(response, 200, route(request.method ?? 'GET', url, body));
    } catch (error) {
      if (error instanceof ApiError) return respond(response, error.status, { Message: error.message }, error.type);
      if (error instanceof URIError) return respond(response, 400, { Message: 'The schedule name is not valid.' }, 'ValidationException');
      throw error;
    }
  };

  /** Sends one firing as its role; throws when the role may not, or the queue refuses. */
  const send = async (schedule: EmulatedSchedule, queueArn: string, body: string) => {
    const statements = options.roles.get(schedule.Target.RoleArn);
    if (!statements || !statementsAllow(statements, { action: 'sqs:SendMessage', resource: queueArn })) {
      throw new Error(`${schedule.Target.RoleArn} may not sqs:SendMessage to ${queueArn}`);
    }
    await options.deliver(queueArn, body);
  };

  const bodyOf = (schedule: EmulatedSchedule, scheduledTime: number, executionId: string, attempt: number) =>
    withContext(schedule.Target.Input ?? '{}', {
      'scheduled-time': isoSeconds(scheduledTime),
      'schedule-arn': schedule.Arn,
      'execution-id': executionId,
      'attempt-number': String(attempt),
    });

  /** Late firings of the fault mode, not yet delivered (cleared on close). */
  const lateFirings = new Set<NodeJS.Timeout>();

  /** A failed delivery attempt: retried (on the next fireDue) until the retry policy gives up, then dead-lettered. */
  const failedAttempt = async (retry: Retry, now: number, error: unknown): Promise<'failed' | 'dead'> => {
    const { schedule, scheduledTime, executionId } = retry;
    const policy = schedule.Target.RetryPolicy;
    const expired = now - scheduledTime > policy.MaximumEventAgeInSeconds * 1000 || retry.attempts > policy.MaximumRetryAttempts;
    log(`[scheduler] ${schedule.Name}: delivery of ${isoSeconds(scheduledTime)} failed (attempt ${retry.attempts}): ${String(error)}`);
    if (!expired) {
      retry.dueAt = now + retryDelayMs(retry.attempts);
      return 'failed';
    }
    const deadLetterArn = schedule.Target.DeadLetterConfig?.Arn;
    if (deadLetterArn) {
      await send(schedule, deadLetterArn, bodyOf(schedule, scheduledTime, executionId, retry.attempts)).catch((dlqError: unknown) =>
        log(`[scheduler] ${schedule.Name}: dead-lettering failed, firing dropped: ${String(dlqError)}`),
      );
    }
    return 'dead';
  };

  /**
   * One delivery attempt of a firing. The fault mode may deliver it twice, late (a late attempt that fails is retried
   * as any other), or fail it (`fire-fails`: refused, or with `landed` delivered and its answer lost), on any attempt.
   */
  const attempt = async (retry: Retry, now: number): Promise<'delivered' | 'failed' | 'dead'> => {
    retry.attempts += 1;
    const { schedule, scheduledTime, executionId } = retry;
    const body = bodyOf(schedule, scheduledTime, executionId, retry.attempts);
    const fault = options.faults?.decide({ service: 'scheduler', operation: 'fire', caller: schedule.Name }, firingEffects)?.effect;
    if (fault?.type === 'fire-late') {
      const late = setTimeout(() => {
        lateFirings.delete(late);
        send(schedule, schedule.Target.Arn, body).catch(async (error: unknown) => {
          if ((await failedAttempt(retry, clock(), error)) === 'failed') retries.push(retry);
        });
      }, fault.ms);
      lateFirings.add(late);
      return 'delivered';
    }
    try {
      if (fault?.type === 'fire-fails') {
        if (fault.landed) await send(schedule, schedule.Target.Arn, body);
        throw new Error(fault.landed ? 'delivered, but its answer was lost (fault fire-fails, landed)' : 'the target did not take it (fault fire-fails)');
      }
      await send(schedule, schedule.Target.Arn, body);
      // At-least-once: the same firing (same execution id) a second time.
      if (fault?.type === 'fire-twice') await send(schedule, schedule.Target.Arn, body);
      return 'delivered';
    } catch (error) {
      return failedAttempt(retry, now, error);
    }
  };

  let firing = false;
  const fireDue = async (): Promise<number> => {
    // One call at a time: a slow delivery must not let the timer deliver a firing twice.
    if (firing) return 0;
    firing = true;
    let delivered = 0;
    let changed = retries.length > 0;
    try {
      const now = clock();
      for (const retry of retries.splice(0)) {
        if ((retry.dueAt ?? 0) > now) {
          retries.push(retry);
          continue;
        }
        const outcome = await attempt(retry, now);
        if (outcome === 'delivered') delivered += 1;
        else if (outcome === 'failed') retries.push(retry);
      }
      for (const [key, entry] of [...entries]) {
        for (let count = 0; entry.schedule.State === 'ENABLED' && entry.next !== undefined && entry.next <= now && count < maxFiringsPerCall; count += 1) {
          changed = true;
          const retry: Retry = { schedule: entry.schedule, definition: entry.definition, scheduledTime: entry.next, executionId: digestOf([entry.schedule.Arn, entry.next]).slice(0, 32), attempts: 0 };
          // After a firing a stopped stack missed, the schedule goes on from the start, not from the firing.
          entry.next = nextFiring(entry.firing, Math.max(entry.next, entry.resumeAfter ?? Number.NEGATIVE_INFINITY));
          entry.resumeAfter = undefined;
          const outcome = await attempt(retry, now);
          if (outcome === 'delivered') delivered += 1;
          else if (outcome === 'failed') retries.push(retry);
        }
        // Completed (an at() that fired, a schedule past its EndDate): DELETE removes it, NONE keeps it, silent.
        if (entry.next === undefined && entry.schedule.ActionAfterCompletion === 'DELETE' && entries.get(key) === entry) entries.delete(key);
      }
    } finally {
      firing = false;
      // Saved after the deliveries: a kill in between delivers them again on the next start, at least once as AWS.
      if (changed) save();
    }
    return delivered;
  };

  load();

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`[scheduler] unexpected failure: ${String(error)}`);
      if (!response.headersSent) respond(response, 500, { Message: 'The local scheduler emulation failed.' }, 'InternalServerException');
      else response.destroy();
    });
  });
  const port = await listen(server, options.port ?? 0, '127.0.0.1');
  const tickMs = options.tickMs ?? 1000;
  const timer =
    tickMs > 0
      ? setInterval(() => {
          fireDue().catch((error: unknown) => log(`[scheduler] firing failed: ${String(error)}`));
        }, tickMs)
      : undefined;
  timer?.unref();

  return {
    endpoint: `http://127.0.0.1:${port}`,
    fireDue,
    schedules: () => [...entries.values()].map((entry) => entry.schedule),
    close: async () => {
      if (timer) clearInterval(timer);
      for (const late of lateFirings) clearTimeout(late);
      await closeServer(server);
    },
  };
};
