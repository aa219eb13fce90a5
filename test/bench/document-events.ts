// Benchmark: the document-events load for the consumer. Documents with a realistic life (uploaded, several
// processing updates, processed or failed, sometimes failed then reprocessed, sometimes not finished yet, plus
// events of types the service does not know), re-sent duplicates, shuffled; and the check that every document ends
// in the state of its distinct events applied in order, with no event lost.
import { isDeepStrictEqual } from 'node:util';
import canonicalize from 'canonicalize';
import type { Handler, SQSBatchResponse } from 'aws-lambda';
import type { DocumentStore } from '#shared/document-events/store';
import { applyEvent, type DocumentEvent, type DocumentState } from '#shared/document-events/state';
import { invokeHandler } from '#infra/local/lambda-runtime';
import { queuedMessage, sqsEvent, type ProviderEvent } from './events';
import { inPool } from './seed';
import { seededRandom } from '#infra/local/seeded-random';
import { shuffle } from './stats';

export interface GeneratedDocument {
  readonly organisationId: string;
  readonly documentId: string;
  /** Distinct events in the order the provider emitted them (by `t`), each with its queued message body. */
  readonly events: readonly { readonly event: ProviderEvent; readonly t: number; readonly eventId: string; readonly body: string }[];
}

const unknownTypes = ['document.thumbnail.created', 'document.viewed', 'document.page.rendered'];
const stages = ['ocr', 'classification', 'extraction', 'validation', 'enrichment', 'indexing', 'review', 'export'];

/**
 * `documents` documents of exactly `eventsPerDocument` distinct events each: 1 upload, 0-2 final events (10 % none
 * yet, 75 % processed or failed, 15 % failed then processed on a retry), 0-2 unknown types, the rest processing.
 */
export const generateDocuments = (options: {
  readonly documents: number;
  readonly eventsPerDocument: number;
  readonly prefix: string;
  readonly seed: number;
  readonly baseTime: number;
}): GeneratedDocument[] => {
  const random = seededRandom(options.seed);
  const receivedAt = new Date(options.baseTime * 1000).toISOString();
  return Array.from({ length: options.documents }, (_, index) => {
    const organisationId = `org_bench_${index % 10}`;
    const documentId = `${options.prefix}-${String(index).padStart(5, '0')}`;
    const userId = `user-${index % 37}`;
    const t0 = options.baseTime + index * 3;
    const roll = random();
    const finals: ('document.processed' | 'document.failed')[] =
      roll < 0.1 ? [] : roll < 0.25 ? ['document.failed', 'document.processed'] : roll < 0.55 ? ['document.failed'] : ['document.processed'];
    const unknown = Math.min(2, Math.floor(random() * 3), options.eventsPerDocument - 2 - finals.length);
    const processing = options.eventsPerDocument - 1 - finals.length - unknown;
    if (processing < 1) throw new Error('eventsPerDocument too small for a realistic mix');
    const object = (extra: Record<string, unknown>) => ({ id: documentId, name: `invoice-${index}.pdf`, contentType: 'application/pdf', ...extra });
    const raw: { event: ProviderEvent; t: number }[] = [];
    const add = (type: string, t: number, extra: Record<string, unknown>) =>
      raw.push({ event: { type, userId, organisationId, data: { object: object(extra) } }, t });
    add('document.uploaded', t0, { size: 10_000 + Math.floor(random() * 5_000_000), pages: 1 + Math.floor(random() * 40) });
    for (let step = 1; step <= processing; step += 1) {
      add('document.processing', t0 + step * 2, { progress: Math.round((step / (processing + 1)) * 100), stage: stages[step % stages.length] });
    }
    let t = t0 + processing * 2 + 5;
    for (const type of finals) {
      add(type, t, type === 'document.failed' ? { error: { code: 'ocr_timeout', retryable: true } } : { fields: 12 + Math.floor(random() * 30), confidence: 0.8 + random() / 5 });
      t += 30;
    }
    for (let extra = 0; extra < unknown; extra += 1) {
      add(unknownTypes[Math.floor(random() * unknownTypes.length)] as string, t0 + Math.floor(random() * (t - t0 + 1)), { viewer: `user-${Math.floor(random() * 99)}`, n: extra });
    }
    raw.sort((a, b) => a.t - b.t);
    const events = raw.map(({ event, t: at }) => {
      const message = queuedMessage(event, at, receivedAt);
      return { event, t: at, eventId: message.eventId, body: JSON.stringify(message) };
    });
    if (new Set(events.map((entry) => entry.eventId)).size !== events.length) throw new Error(`${documentId}: generated the same event twice`);
    return { organisationId, documentId, events };
  });
};

/** Every distinct event's message, plus `duplicates` re-sent identical messages, shuffled. */
export const deliveries = (documents: readonly GeneratedDocument[], duplicates: number, seed: number): string[] => {
  const random = seededRandom(seed);
  const bodies = documents.flatMap((document) => document.events.map((entry) => entry.body));
  const resent = Array.from({ length: duplicates }, () => bodies[Math.floor(random() * bodies.length)] as string);
  return shuffle([...bodies, ...resent], random);
};

export interface ConsumerRun {
  readonly messages: number;
  readonly invocations: number;
  readonly wallMs: number;
  /** Records reported in batchItemFailures (they were re-delivered, as SQS would after the visibility timeout). */
  readonly failedRecords: number;
  readonly redeliveryRounds: number;
}

/**
 * Drives the consumer like the event source mapping: batches of `batchSize`, at most `concurrency` invocations at
 * once, each on its own container (a separately loaded copy of the handler module, as Lambda runs one invocation
 * per execution environment). Failed records are re-delivered after the pass, up to `maxReceives` times.
 */
export const driveConsumer = async (options: {
  readonly bodies: readonly string[];
  readonly containers: readonly Handler[];
  readonly batchSize: number;
  readonly queueArn: string;
  readonly functionName: string;
  readonly timeoutMs: number;
  readonly maxReceives: number;
  readonly onProgress?: (processed: number) => void;
}): Promise<ConsumerRun> => {
  const started = performance.now();
  let pending = [...options.bodies];
  let invocations = 0;
  let failedRecords = 0;
  let processed = 0;
  let reported = 0;
  let round = 0;
  for (; pending.length > 0 && round < options.maxReceives; round += 1) {
    const batches: string[][] = [];
    for (let start = 0; start < pending.length; start += options.batchSize) batches.push(pending.slice(start, start + options.batchSize));
    const failed: string[] = [];
    let nextBatch = 0;
    await Promise.all(
      options.containers.map(async (container) => {
        while (nextBatch < batches.length) {
          const batch = batches[nextBatch] as string[];
          nextBatch += 1;
          const event = sqsEvent(batch, options.queueArn, round + 1);
          invocations += 1;
          const response = await invokeHandler<SQSBatchResponse | undefined>(container, event, {
            functionName: options.functionName,
            timeoutMs: options.timeoutMs,
            memoryLimitInMB: 512,
          });
          const failedIds = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
          for (const record of event.Records) if (failedIds.has(record.messageId)) failed.push(record.body);
          failedRecords += failedIds.size;
          processed += batch.length;
          if (options.onProgress && processed - reported >= 2500) {
            reported = processed;
            options.onProgress(processed);
          }
        }
      }),
    );
    pending = failed;
  }
  if (pending.length > 0) throw new Error(`${pending.length} record(s) still failing after ${options.maxReceives} deliveries`);
  return { messages: options.bodies.length, invocations, wallMs: performance.now() - started, failedRecords, redeliveryRounds: round - 1 };
};

export interface DocumentCheck {
  readonly documents: number;
  readonly distinctEvents: number;
  readonly documentsInOrderState: number;
  readonly eventsRecorded: number;
  readonly lostEvents: number;
  readonly unexpectedEvents: number;
  readonly mismatches: readonly string[];
  readonly ok: boolean;
}

/** Plain JSON (undefined members dropped), as the state comes back from DynamoDB. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

/** The state of a document's distinct events applied one by one in the order they were emitted. */
export const expectedState = (document: GeneratedDocument): DocumentState => {
  let state: DocumentState | undefined;
  for (const entry of document.events) {
    const event: DocumentEvent = {
      eventId: entry.eventId,
      type: entry.event.type,
      t: entry.t,
      userId: entry.event.userId,
      organisationId: entry.event.organisationId,
      documentId: entry.event.data.object.id,
      objectJson: canonicalize(entry.event.data.object) ?? '{}',
    };
    state = applyEvent(state, event);
  }
  if (!state) throw new Error(`${document.documentId} has no events`);
  return state;
};

export const checkDocuments = async (repository: DocumentStore, documents: readonly GeneratedDocument[]): Promise<DocumentCheck> => {
  let documentsInOrderState = 0;
  let eventsRecorded = 0;
  let lostEvents = 0;
  let unexpectedEvents = 0;
  const mismatches: string[] = [];
  await inPool(documents, 8, async (document) => {
    const record = await repository.get(document.organisationId, document.documentId);
    const expectedIds = new Set(document.events.map((entry) => entry.eventId));
    const recordedIds = new Set(record?.history.map((entry) => entry.eventId) ?? []);
    eventsRecorded += record?.history.length ?? 0;
    const lost = [...expectedIds].filter((id) => !recordedIds.has(id)).length;
    const unexpected = (record?.history.length ?? 0) - (expectedIds.size - lost);
    lostEvents += lost;
    unexpectedEvents += Math.max(0, unexpected);
    const expected = expectedState(document);
    const sameState = record !== undefined && isDeepStrictEqual(plain(record.state), plain(expected));
    const countsRight = record !== undefined && record.state.eventCount === expectedIds.size && record.history.length === expectedIds.size;
    if (sameState && countsRight && lost === 0) documentsInOrderState += 1;
    else if (mismatches.length < 5) {
      mismatches.push(
        `${document.organisationId}/${document.documentId}: expected ${expected.state ?? '-'} (${expectedIds.size} events), ` +
          `got ${record ? `${record.state.state ?? '-'} (eventCount ${record.state.eventCount}, history ${record.history.length})` : 'nothing'}`,
      );
    }
  });
  return {
    documents: documents.length,
    distinctEvents: documents.reduce((sum, document) => sum + document.events.length, 0),
    documentsInOrderState,
    eventsRecorded,
    lostEvents,
    unexpectedEvents,
    mismatches,
    ok: documentsInOrderState === documents.length && lostEvents === 0 && unexpectedEvents === 0,
  };
};
