// Data kit: the `Idempotency-Key` of a write. The key's claim is an item written IN THE SAME TRANSACTION as the
// write's own items (condition: the key is free), holding the request's hash and the answer to replay. So the effect
// and the key commit together or not at all: whatever dies when (the function between its commit and its answer, an
// early answer while the transaction is still in flight), a retry with the same key finds the claim and replays the
// first answer, byte for byte, or its own transaction is cancelled by the twin's claim and it replays that. Nothing
// holds a key without its effect, so there is no lock to expire and no second write after the work.
//
// Item: `{ pk: T#<tenant>, sk: IDEMPOTENCY#<operation>#<SHA-256 of the key>, entity: IdempotencyKey, requestHash,
// answer (JSON text), expiresAt }`, per tenant and per operation, expiring after 24 hours through the table's TTL.
// The write reads the claim (GetItem, consistent) in the round trip of its own first reads, and adds `claim.item(...)`
// to its transaction through `transact`'s `claim` option, which puts it first and turns its failed condition into
// KeyAlreadyClaimed. shared/payments/README.md ("Idempotency-Key") says what it guarantees.
//
// The request's hash is of its JSON with every object's members sorted (`requestText`): the same request with its
// members in another order (a client's serializer rebuilding the body for its retry, a form's fields) is the same
// request, and replays. Lists keep their order, which is theirs to mean.
import { createHash, randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand, type PutCommandInput, type TransactWriteCommandInput, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { ApiError, problemKinds, ValidationFailed } from '#shared/errors';
import { currentInvocation } from '#shared/invocation';
import type { TableContext } from './client';
import { composeKey, tenantKey, type ItemKey } from './partition';
import { tableDefinition } from './table';

/** The header, as the HTTP stack hands it (lower case), and how long a key is remembered. */
export const idempotencyKeyHeader = 'idempotency-key';
export const idempotencyWindowSeconds = 24 * 60 * 60;

/** The `entity` of a claim item. */
export const idempotencyEntity = 'IdempotencyKey';

/** A complete answer: what a replay gives back, byte for byte the same status, body and headers. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * How an answer is kept: `strip` takes out what the claim must not hold (personal data) and `restore` puts it back on
 * a replay, from where it is kept for good.
 */
export interface AnswerStorage {
  readonly strip: (answer: Answer) => Answer;
  readonly restore: (stored: Answer, tenantId: number) => Promise<Answer>;
}

const keepWhole: AnswerStorage = { strip: (answer) => answer, restore: async (stored) => stored };

const keyPattern = /^[\x21-\x7e]{1,255}$/;

/**
 * The key of a request: 1 to 255 visible ASCII characters (a UUID is the usual choice). The IETF draft's quoted
 * form (`"abc"`, a Structured Field string) and the bare form used by Stripe and others name the same key.
 */
export const parseIdempotencyKey = (raw: string): string => {
  const trimmed = raw.trim();
  const key = trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
  if (!keyPattern.test(key)) {
    throw new ValidationFailed([{ parameter: 'Idempotency-Key', detail: 'must be 1 to 255 visible ASCII characters' }]);
  }
  return key;
};

export class IdempotencyKeyReused extends ApiError {
  override readonly name: string = 'IdempotencyKeyReused';
  constructor() {
    super(
      problemKinds.idempotencyKeyReused,
      'This Idempotency-Key was used with a different request in the last 24 hours; use a new key for a new request.',
    );
  }
}

export class IdempotencyKeyInUse extends ApiError {
  override readonly name: string = 'IdempotencyKeyInUse';
  constructor() {
    super(
      problemKinds.idempotencyKeyInUse,
      'A request with this Idempotency-Key is still in progress; retry once it has finished.',
      { headers: { 'Retry-After': '1' } },
    );
  }
}

/** What a claim holds: the hash of the request that took the key, and its answer as JSON text (storage-stripped). */
export interface StoredClaim {
  readonly requestHash: string;
  readonly answer: string;
  /** Set while the answer is provisional (`WriteClaim.provisional`, until `restate`): when it was written, epoch ms. */
  readonly provisionalSince?: number;
  /**
   * Set on a pending claim (`WriteClaim.pending`): the request committed a first write, at this version of its
   * record, before its answer could be known (`answer` is empty). Its retry resumes from there (`resumeOf`).
   */
  readonly resumeVersion?: number;
  /** What else a pending claim's retry needs to resume, opaque here (a receipt's save lease). */
  readonly resumeToken?: string;
  /** When a pending claim was written, epoch ms. */
  readonly pendingSince?: number;
  /**
   * Which request wrote a pending claim: a random token of that request's run. A request tells its own pending claim
   * from a twin's by it (two twins may write theirs in one millisecond, so `pendingSince` cannot tell them apart).
   */
  readonly pendingBy?: string;
  /**
   * On a provisional or pending claim written inside an operation's invocation: when its request has answered at the
   * latest (shared/invocation.ts `answerBy`), plus `landingMs`. Past it, that request sends nothing more, so the claim
   * is as final as it will be; before it, its request may still restate or complete it, and a twin waits.
   */
  readonly liveUntil?: number;
}

/** Where a request's retry resumes: the version its first commit left, and the area's token, if any. */
export interface ResumePoint {
  readonly version: number;
  readonly token?: string;
}

/**
 * How long a twin waits for a provisional answer to be restated when the claim does not say how long its request may
 * still act (`liveUntil`: written outside an invocation): a live request restates it within its schedule sync's few
 * round trips; one still provisional after this died before restating it (its answer, as committed, is then the one
 * to replay).
 */
export const provisionalWaitMs = 3_000;
const provisionalPollMs = 100;
/** What a write sent just before its request's answer may take to land (its socket closed with the answer). */
const landingMs = 1_000;
/** What a twin keeps of its own time to answer key-in-use itself, rather than be cut off by its early answer. */
const twinAnswerMarginMs = 250;

/**
 * True while `found` holds an answer its request may still restate, or is pending and its request may still be
 * finishing (a twin waits for it): until its `liveUntil` when it has one (its request's own deadline, however long
 * its calls take under load), else for `waitMs` from its write (a claim written outside an invocation: tests, tools).
 */
const isLive = (found: StoredClaim, now: number, waitMs: number): boolean => {
  const since = found.provisionalSince ?? found.pendingSince;
  if (since === undefined) return false;
  return found.liveUntil !== undefined ? now < found.liveUntil : now - since < waitMs;
};

/**
 * The key is taken: read before the write (`found`), or by a twin whose transaction committed first (the claim's
 * condition cancelled this one). Nothing of this request was written: an ID it took can be given back.
 */
export class KeyAlreadyClaimed extends Error {
  override readonly name = 'KeyAlreadyClaimed';
  constructor(readonly found?: StoredClaim) {
    super('the Idempotency-Key is already claimed');
  }
}

type TransactionItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A transaction item of a key's claim (`WriteClaim.item` or `restate`), as an area's store takes it. */
export type KeyClaimItem = TransactionItem;

/** What a write does with its key: read the claim with its first reads, and claim the key in its transaction. */
export interface WriteClaim<R> {
  /** The claim an earlier request left, or undefined (GetItem, consistent): send it with the write's first reads. */
  read(): Promise<StoredClaim | undefined>;
  /** The transaction item that takes the key with the answer of `result` (hand it to `transact` as `claim`). */
  item(result: R): TransactionItem;
  /**
   * Like `item`, for a write whose answer is settled by a step after its commit (a scheduled task's schedule state):
   * the claim is marked provisional until `restate` replaces its answer. A twin that finds it provisional waits (up to
   * 3 s) for the restatement, so a burst with one key gets one answer, the one the first request sent. A claim still
   * provisional after that belongs to a request that died before restating it: its answer is replayed as written.
   */
  provisional(result: R): TransactionItem;
  /**
   * The transaction item that replaces a provisional claim's answer with the answer of `result` and ends its
   * provisional state: written in the settling step's own write, before the answer is sent, so a replay is the answer
   * the client got. Its condition (the claim is this request's) never fails once the claim committed.
   */
  restate(result: R): TransactionItem;
  /**
   * For a write in several commits whose answer is known only after the last (a receipt's save that changes the
   * body, then completes it; a save too large for one transaction, whose lease comes first): the transaction item of
   * an early commit, which takes the key without an answer, noting the version of the record that commit leaves and
   * the area's `token` (a lease). A later commit's `pending`, `provisional` or `item` replaces it. A request that
   * dies between them leaves it pending; its retry (same key, same request) finds it with `read` and resumes there
   * (`resumeOf`) instead of deciding afresh, so nothing is done twice nor refused as stale. A twin that finds it
   * pending waits for its answer like a provisional one, then answers 409 key-in-use (retry later) while it stays
   * pending.
   */
  pending(resumeVersion: number, token?: string): TransactionItem;
  /** Where to resume when `found` is this request's own pending claim (same request); else undefined. */
  resumeOf(found: StoredClaim): ResumePoint | undefined;
  /**
   * Writes `restate` alone (a conditional UpdateItem), for a write whose answer is known only after commits of its
   * own that follow the one its provisional claim went in (a receipt's completion: the claim commits with the
   * completion's deciding transaction, the answer is read after the rest). A claim that is not this request's is
   * KeyAlreadyClaimed (never, once the provisional claim committed).
   */
  settle(result: R): Promise<void>;
}

export interface IdempotentRequest {
  readonly tenantId: number;
  /** The header's raw value, or undefined when the request has none (then nothing is remembered). */
  readonly key: string | undefined;
  /** What a replay must match: the same key with anything else here answers 422. */
  readonly request: unknown;
}

/**
 * A request as the text its hash is of: its JSON with the members of every object in sorted order (JavaScript's own
 * order still puts integer-like names first, the same way every time), so member order is not part of a request.
 */
export const requestText = (request: unknown): string =>
  JSON.stringify(request, (_name, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Only JSON survives the claim: an answer is made JSON-clean before it is sent, so a replay equals it. */
const jsonClean = (answer: Answer): Answer => JSON.parse(JSON.stringify(answer)) as Answer;

/** What marks a claim whose answer is not final: provisional (`provisionalSince`), or pending (`resumeVersion`, `pendingSince`). */
type ClaimMarks = Pick<StoredClaim, 'provisionalSince' | 'resumeVersion' | 'resumeToken' | 'pendingSince' | 'pendingBy' | 'liveUntil'>;

/** The `liveUntil` of a claim this code writes now: its invocation's answer time and landing, if it runs in one. */
const liveUntilMark = (): Pick<StoredClaim, 'liveUntil'> => {
  const answerBy = currentInvocation()?.answerBy;
  return answerBy === undefined ? {} : { liveUntil: answerBy + landingMs };
};

/** Who a pending claim is by: its `pendingBy`, or its time on a claim written before `pendingBy` existed; else undefined. */
const pendingMarkOf = (found: StoredClaim): string | undefined =>
  found.pendingBy ?? (found.pendingSince !== undefined ? `at ${found.pendingSince}` : undefined);

/** Whether a claim's TTL attribute (epoch seconds) has passed. */
const isExpired = (expiresAt: unknown): boolean => typeof expiresAt === 'number' && expiresAt <= Math.floor(Date.now() / 1000);

/**
 * The transaction item that takes `key` with `claim` (its request's hash, its answer and marks), for 24 hours: where
 * no claim is, or one past its 24 hours that TTL has not deleted yet, or over a pending claim of the same request (its second commit, or its retry deciding again after the
 * record changed since the first). Any other claim cancels it.
 */
export const keyClaimPut = (tableName: string, key: ItemKey, claim: StoredClaim): TransactionItem => ({
  Put: {
    TableName: tableName,
    Item: {
      ...key,
      entity: idempotencyEntity,
      ...claim,
      [tableDefinition.timeToLiveAttribute]: Math.floor(Date.now() / 1000) + idempotencyWindowSeconds,
    },
    ConditionExpression: 'attribute_not_exists(pk) OR #expiresAt <= :now OR (#requestHash = :requestHash AND attribute_exists(#resumeVersion))',
    ExpressionAttributeNames: { '#requestHash': 'requestHash', '#resumeVersion': 'resumeVersion', '#expiresAt': tableDefinition.timeToLiveAttribute },
    ExpressionAttributeValues: { ':requestHash': claim.requestHash, ':now': Math.floor(Date.now() / 1000) },
  },
});

/** The sort-key prefix of an operation's claims (in the tenant's partition). */
export const idempotencyKeyPrefix = (operationId: string): string => composeKey('IDEMPOTENCY', operationId);

/** Where the claim of `key` (already parsed) lives: the key itself is never stored, only its SHA-256. */
export const idempotencyClaimKey = (tenantId: number, operationId: string, key: string): ItemKey =>
  tenantKey(tenantId, composeKey(idempotencyKeyPrefix(operationId), sha256(key)));

/**
 * The Idempotency-Key of one operation. `run` gives the work a WriteClaim (none without a key); the work reads the
 * claim with its first reads (a claim found: throw KeyAlreadyClaimed with it, after giving back what it took) and adds
 * the claim's item to its transaction. Then:
 * - the work succeeded: its answer (the claim holds the same, stripped);
 * - KeyAlreadyClaimed, or any refusal or failure while a twin may have committed: the claim is read (consistent);
 *   found with the same request: its answer replayed; with another request: 422; not found: the error as it was
 *   (a refusal is not remembered: it wrote nothing, so sending it again is harmless).
 */
export const createIdempotency = (
  table: TableContext,
  operationId: string,
  storage: AnswerStorage = keepWhole,
  /** How long a twin waits for a provisional or pending claim (`provisionalWaitMs`; a test on a starved machine may give more). */
  { waitMs = provisionalWaitMs }: { readonly waitMs?: number } = {},
) => {
  const { client, tableName } = table;

  const readClaim = async (key: ItemKey): Promise<StoredClaim | undefined> => {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    if (Item?.entity !== idempotencyEntity) return undefined;
    // Past its 24 hours the key is free, though DynamoDB's TTL may take days to delete the claim (keyClaimPut's
    // condition says the same).
    if (isExpired(Item[tableDefinition.timeToLiveAttribute])) return undefined;
    return {
      requestHash: String(Item.requestHash),
      answer: String(Item.answer),
      ...(typeof Item.provisionalSince === 'number' ? { provisionalSince: Item.provisionalSince } : {}),
      ...(typeof Item.resumeVersion === 'number' ? { resumeVersion: Item.resumeVersion } : {}),
      ...(typeof Item.resumeToken === 'string' ? { resumeToken: Item.resumeToken } : {}),
      ...(typeof Item.pendingSince === 'number' ? { pendingSince: Item.pendingSince } : {}),
      ...(typeof Item.pendingBy === 'string' ? { pendingBy: Item.pendingBy } : {}),
      ...(typeof Item.liveUntil === 'number' ? { liveUntil: Item.liveUntil } : {}),
    };
  };

  return {
    /** Runs `work` once per tenant, operation and key within 24 hours; a repeat gets the first answer. */
    async run<R>(input: IdempotentRequest, answerOf: (result: R) => Answer, work: (claim: WriteClaim<R> | undefined) => Promise<R>): Promise<Answer> {
      if (input.key === undefined) return jsonClean(answerOf(await work(undefined)));
      const key = idempotencyClaimKey(input.tenantId, operationId, parseIdempotencyKey(input.key));
      const requestHash = sha256(requestText(input.request ?? null));
      /**
       * Who the pending claims this request wrote or resumed are by (`pendingMarkOf`), to tell its own from a twin's
       * (same request, same key): every pending claim it writes carries its run's token; a claim it resumes adds that
       * claim's mark. Taken for a twin's, its own claim kept it waiting until its deadline, then 409 key-in-use (a save
       * in chunks that completes writes two); a twin's taken for its own (twins' claims written in one millisecond,
       * when a claim's time was its mark) answered this request's failure where the twin's answer was coming. A
       * provisional claim is never taken for its own: replayed as a twin's, its answer comes once its request's own
       * settling could no longer change it (and a task save's 409 sends the client back, whose retry queues the sync
       * the failed request did not).
       */
      const runToken = randomUUID();
      const ownMarks = new Set<string>([runToken]);
      const answerText = (result: R): string =>
        // JSON text, not a DynamoDB map (which does not keep member order): a replay is byte for byte the first
        // answer, in JSON and in XML.
        JSON.stringify(storage.strip(jsonClean(answerOf(result))));
      const claim: WriteClaim<R> = {
        read: () => readClaim(key),
        settle: async (result) => {
          const { Update } = claim.restate(result);
          try {
            await client.send(new UpdateCommand(Update as UpdateCommandInput));
          } catch (error) {
            if ((error as Error).name === 'ConditionalCheckFailedException') throw new KeyAlreadyClaimed();
            throw error;
          }
        },
        restate: (result) => ({
          Update: {
            TableName: tableName,
            Key: key,
            UpdateExpression: 'SET #answer = :answer REMOVE #provisionalSince, #liveUntil',
            ConditionExpression: '#requestHash = :requestHash',
            ExpressionAttributeNames: { '#answer': 'answer', '#requestHash': 'requestHash', '#provisionalSince': 'provisionalSince', '#liveUntil': 'liveUntil' },
            ExpressionAttributeValues: { ':answer': answerText(result), ':requestHash': requestHash },
          },
        }),
        provisional: (result) => claimPut(answerText(result), { provisionalSince: Date.now(), ...liveUntilMark() }),
        item: (result) => claimPut(answerText(result)),
        pending: (resumeVersion, token) =>
          claimPut('', { resumeVersion, ...(token !== undefined ? { resumeToken: token } : {}), pendingSince: Date.now(), pendingBy: runToken, ...liveUntilMark() }),
        resumeOf: (found) => {
          if (found.requestHash !== requestHash || found.resumeVersion === undefined) return undefined;
          // Resumed by this request: from here on its claim is this request's own, as if it had written it.
          const mark = pendingMarkOf(found);
          if (mark !== undefined) ownMarks.add(mark);
          return { version: found.resumeVersion, ...(found.resumeToken !== undefined ? { token: found.resumeToken } : {}) };
        },
      };
      const claimPut = (answer: string, extra: ClaimMarks = {}): TransactionItem => keyClaimPut(tableName, key, { requestHash, answer, ...extra });
      const replay = async (first: StoredClaim): Promise<Answer> => {
        if (first.requestHash !== requestHash) throw new IdempotencyKeyReused();
        let found = first;
        // A provisional answer: its request may still be settling it, so wait for the restatement; a pending claim:
        // its request may still be committing its answer, so wait for it.
        // A twin whose own answer comes first asks to be sent again rather than replay an answer still being made.
        const answerBy = currentInvocation()?.answerBy;
        while (isLive(found, Date.now(), waitMs)) {
          if (answerBy !== undefined && Date.now() + provisionalPollMs + twinAnswerMarginMs >= answerBy) throw new IdempotencyKeyInUse();
          await new Promise((resolve) => setTimeout(resolve, provisionalPollMs));
          found = (await readClaim(key)) ?? found;
        }
        // Still pending: its request died between its commits. Its retry resumes it (the work reads the claim first);
        // this twin cannot tell it is that retry, so it asks to be sent again.
        if (found.resumeVersion !== undefined) throw new IdempotencyKeyInUse();
        return storage.restore(JSON.parse(found.answer) as Answer, input.tenantId);
      };
      let result: R;
      try {
        result = await work(claim);
      } catch (error) {
        if (error instanceof KeyAlreadyClaimed) {
          const found = error.found ?? (await readClaim(key));
          // Taken and gone again: only the TTL removes a claim, so this is a key a day old; send it again.
          if (!found) throw new IdempotencyKeyInUse();
          return replay(found);
        }
        // A refusal decided on a read that already saw a twin's commit (its balance, its GUID), or a failure after
        // this request's own commit: the claim says which. A claim that cannot be read leaves the error as it was,
        // and so does this request's own pending claim (its first commit stands; its retry resumes after it).
        const found = await readClaim(key).catch(() => undefined);
        const mark = found && pendingMarkOf(found);
        const ownPending = found?.requestHash === requestHash && mark !== undefined && ownMarks.has(mark);
        if (found && !ownPending) return replay(found);
        throw error;
      }
      return jsonClean(answerOf(result));
    },
  };
};

export type Idempotency = ReturnType<typeof createIdempotency>;
