// HTTP and data: the `Idempotency-Key` header of the payment writes, on Powertools' idempotency utility with its
// DynamoDB persistence in the single table. The key is scoped to the tenant and the operation: each request gets a
// persistence layer whose static partition value is the tenant's partition (`T#<tenant>`), so one tenant's key can
// never meet another's and no single partition takes every tenant's writes; the sort key is
// `IDEMPOTENCY#<operationId>#<SHA-256 of the key>`. Records expire after 24 hours through the table's TTL attribute.
//
// The utility itself is loaded only by a request that carries a key (`#lazy/idempotency`, idempotency-library.ts): a
// chunk of its own beside the function's bundle on Lambda, so a payment write without a key never pays its cold start.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import type { TableContext } from '#shared/data/client';
import { tenantPartition } from '#shared/data/partition';
import { tableDefinition } from '#shared/data/table';
import { ApiError, problemKinds, ValidationFailed } from '#shared/errors';
import { idempotencyKeyPrefix } from './keys';

/** The header, as the HTTP stack hands it (lower case), and how long a key is remembered. */
export const idempotencyKeyHeader = 'idempotency-key';
export const idempotencyWindowSeconds = 24 * 60 * 60;

/** A complete answer: what a replay gives back, byte for byte the same status, body and headers. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * How an answer is kept: `strip` takes out what the idempotency record must not hold (personal data) and `restore`
 * puts it back on a replay, from where it is kept for good.
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
  constructor() {
    super(
      problemKinds.idempotencyKeyReused,
      'This Idempotency-Key was used with a different request in the last 24 hours; use a new key for a new request.',
    );
  }
}

export class IdempotencyKeyInUse extends ApiError {
  constructor() {
    super(
      problemKinds.idempotencyKeyInUse,
      'A request with this Idempotency-Key is still in progress; retry once it has finished.',
      { headers: { 'Retry-After': '1' } },
    );
  }
}

type IdempotencyLibrary = typeof import('#lazy/idempotency');
let library: Promise<IdempotencyLibrary> | undefined;
/** The utility, loaded on the first request with a key and kept for the process. */
const loadLibrary = (): Promise<IdempotencyLibrary> => (library ??= import('#lazy/idempotency'));

/** Powertools' errors as problems; a failure of the persistence itself is the DynamoDB error behind it. */
const toProblemError = (error: unknown, { IdempotencyValidationError, IdempotencyAlreadyInProgressError, IdempotencyPersistenceLayerError }: IdempotencyLibrary): unknown => {
  if (error instanceof IdempotencyValidationError) return new IdempotencyKeyReused();
  if (error instanceof IdempotencyAlreadyInProgressError) return new IdempotencyKeyInUse();
  if (error instanceof IdempotencyPersistenceLayerError && error.cause !== undefined) return error.cause;
  return error;
};

/** Only JSON survives the record: an answer is made JSON-clean before it is sent, so a replay equals it. */
const jsonClean = (answer: Answer): Answer => JSON.parse(JSON.stringify(answer)) as Answer;

export interface IdempotentRequest {
  readonly tenantId: number;
  /** The header's raw value, or undefined when the request has none (then nothing is remembered). */
  readonly key: string | undefined;
  /** What a replay must match: the same key with anything else here answers 422. */
  readonly request: unknown;
  readonly context: Context;
}

export const createIdempotency = (table: TableContext, operationId: string, storage: AnswerStorage = keepWhole) => {
  // The document client shares its DynamoDB client's configuration and middleware; Powertools sends low-level
  // commands through it, so one client (one connection pool) serves the function.
  const client = table.client as unknown as DynamoDBClient;
  const keyPrefix = idempotencyKeyPrefix(operationId);

  return {
    /** Runs `work` once per tenant, operation and key within 24 hours; a repeat gets the first answer. */
    async run(input: IdempotentRequest, work: () => Promise<Answer>): Promise<Answer> {
      if (input.key === undefined) return jsonClean(await work());
      const key = parseIdempotencyKey(input.key);
      const powertools = await loadLibrary();
      const { DynamoDBPersistenceLayer, IdempotencyConfig, makeIdempotent } = powertools;
      const persistenceStore = new DynamoDBPersistenceLayer({
        tableName: table.tableName,
        keyAttr: tableDefinition.partitionKey,
        sortKeyAttr: tableDefinition.sortKey,
        staticPkValue: tenantPartition(input.tenantId),
        expiryAttr: tableDefinition.timeToLiveAttribute,
        inProgressExpiryAttr: 'idempotencyInProgressUntil',
        statusAttr: 'idempotencyStatus',
        dataAttr: 'idempotencyAnswer',
        validationKeyAttr: 'idempotencyRequestHash',
        awsSdkV3Client: client,
      });
      const config = new IdempotencyConfig({
        eventKeyJmesPath: 'key',
        payloadValidationJmesPath: 'request',
        expiresAfterSeconds: idempotencyWindowSeconds,
        hashFunction: 'sha256',
        throwOnNoIdempotencyKey: true,
      });
      // In-progress records then expire with this invocation, so a crashed request does not hold its key for a day.
      config.registerLambdaContext(input.context);
      let fresh: Answer | undefined;
      // Kept as JSON text, not as a DynamoDB map (which does not keep member order), so a replay is byte for byte
      // the first answer in JSON and in XML.
      const once = makeIdempotent(
        async (_payload: unknown) => {
          fresh = jsonClean(await work());
          return JSON.stringify(storage.strip(fresh));
        },
        { persistenceStore, config, keyPrefix },
      );
      try {
        const stored = (await once({ key, request: input.request })) as string;
        return fresh ?? (await storage.restore(JSON.parse(stored) as Answer, input.tenantId));
      } catch (error) {
        throw toProblemError(error, powertools);
      }
    },
  };
};

export type Idempotency = ReturnType<typeof createIdempotency>;
