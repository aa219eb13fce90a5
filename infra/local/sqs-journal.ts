// Local stack: the SQS server's messages kept across a restart of a persistent stack. `local-aws-sqs` holds its
// queues in memory, so a stop (or a kill -9) of a stack whose table lives on in `.local/` lost the queued work AWS
// would keep and finish: a refund left `Queued` for good, a receipt `Completing`, a document event unapplied. This
// server puts a journal in front of the SQS server's own request handler: every message a send acknowledged is
// appended to it before the answer leaves (an answered send survives a kill -9 of the stack at any point), every
// receive and delete the server confirmed likewise; a start re-sends what was sent and not deleted to the new
// server's queues (`restore`), before anything consumes them. What AWS keeps that the journal cannot give back is
// said in infra/local/README.md ("The queues' journal").
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createRequestHandler, type ISqsServerOptions } from 'local-aws-sqs';
import { isJsonObject } from '#shared/openapi/types';
import { listen, readRequestBody } from './local-aws';

/** What a send carried, as the JSON protocol wrote it: what a re-send needs to give the consumer the same message. */
export interface JournaledMessage {
  readonly MessageBody: string;
  readonly DelaySeconds?: number;
  readonly MessageAttributes?: unknown;
  readonly MessageSystemAttributes?: unknown;
  readonly MessageGroupId?: string;
  readonly MessageDeduplicationId?: string;
}

/** One line of the journal (newline-delimited JSON). */
type JournalRecord =
  | { readonly send: { readonly queue: string; readonly id: string; readonly at: number; readonly message: JournaledMessage } }
  | { readonly receive: { readonly queue: string; readonly ids: readonly string[] } }
  | { readonly delete: { readonly ids: readonly string[] } }
  | { readonly purge: { readonly queue: string } };

/** A message the journal says is still in a queue. */
export interface LiveMessage {
  /** The queue it is in: where it was sent, or where a receive last found it (a dead-letter queue it was moved to). */
  queue: string;
  readonly id: string;
  readonly at: number;
  readonly message: JournaledMessage;
  /** Receives since it was sent (ApproximateReceiveCount as the journal saw it). */
  receives: number;
}

export const journalFileName = 'journal.ndjson';

/** The messages still queued after these records, in the order they were sent. */
export const liveMessages = (records: Iterable<JournalRecord>): LiveMessage[] => {
  const live = new Map<string, LiveMessage>();
  for (const record of records) {
    if ('send' in record) live.set(record.send.id, { ...record.send, receives: 0 });
    else if ('receive' in record) {
      for (const id of record.receive.ids) {
        const message = live.get(id);
        if (message) {
          message.receives += 1;
          message.queue = record.receive.queue;
        }
      }
    } else if ('delete' in record) for (const id of record.delete.ids) live.delete(id);
    else for (const [id, message] of live) if (message.queue === record.purge.queue) live.delete(id);
  }
  return [...live.values()];
};

/** The journal's records; a last line cut short by a kill is left out (its answer never left). */
export const readJournal = (file: string): JournalRecord[] => {
  if (!existsSync(file)) return [];
  const records: JournalRecord[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line) as JournalRecord);
    } catch {
      // A partial line: the write that was cut short never answered its client.
    }
  }
  return records;
};

/** A queue's name from its URL (the last segment of the path), as the SQS server finds it. */
const queueNameOf = (queueUrl: unknown): string | undefined => {
  if (typeof queueUrl !== 'string') return undefined;
  try {
    return new URL(queueUrl).pathname.split('/').filter(Boolean).at(-1);
  } catch {
    return queueUrl.split('/').filter(Boolean).at(-1);
  }
};

/** The members of a send entry the journal keeps (nothing else of the request). */
const messageOf = (entry: Record<string, unknown>): JournaledMessage => ({
  MessageBody: String(entry.MessageBody),
  ...(typeof entry.DelaySeconds === 'number' ? { DelaySeconds: entry.DelaySeconds } : {}),
  ...(entry.MessageAttributes !== undefined ? { MessageAttributes: entry.MessageAttributes } : {}),
  ...(entry.MessageSystemAttributes !== undefined ? { MessageSystemAttributes: entry.MessageSystemAttributes } : {}),
  ...(typeof entry.MessageGroupId === 'string' ? { MessageGroupId: entry.MessageGroupId } : {}),
  ...(typeof entry.MessageDeduplicationId === 'string' ? { MessageDeduplicationId: entry.MessageDeduplicationId } : {}),
});

const jsonProtocol = 'application/x-amz-json-1.0';
/** A batch of 10 messages of 1 MiB each, with room for the envelope: the SQS server refuses what SQS refuses. */
const maxRequestBytes = 12 * 1024 * 1024;

export interface JournaledSqsServerOptions extends ISqsServerOptions {
  readonly port: number;
  readonly hostname: string;
  /** The folder of the journal (`.local/sqs`). */
  readonly dir: string;
  readonly log: (line: string) => void;
  /** Epoch milliseconds now (tests). */
  readonly clock?: () => number;
}

export interface JournaledSqsServer {
  readonly server: Server;
  readonly endpoint: string;
  /**
   * Sends the messages the journal holds to this server's queues (which must exist by now: the stack calls it after
   * provisioning them) and rewrites the journal to hold just them; resolves to how many.
   */
  restore(): Promise<{ restored: number; deadLettered: number; unknownQueue: number }>;
}

/**
 * The SQS server with its journal. Only the JSON protocol (every current AWS SDK and CLI) is journaled; a send in
 * the older Query protocol is served, not kept, and says so once.
 */
export const startJournaledSqsServer = async (options: JournaledSqsServerOptions): Promise<JournaledSqsServer> => {
  const { dir, log, clock = Date.now, ...serverOptions } = options;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, journalFileName);
  const { requestHandler } = createRequestHandler(serverOptions);
  /** Receipt handles the server gave out -> the message each names, and back (so a message keeps its latest only). */
  const handles = new Map<string, string>();
  const handleOf = new Map<string, string>();
  let journaling = true;
  let queryProtocolNoted = false;

  const append = (record: JournalRecord) => {
    if (journaling) appendFileSync(file, `${JSON.stringify(record)}\n`);
  };

  /** What an answered request changed, written before the answer leaves. */
  const observe = (action: string, request: Record<string, unknown>, answer: Record<string, unknown>) => {
    const queue = queueNameOf(request.QueueUrl);
    if (queue === undefined) return;
    const at = clock();
    switch (action) {
      case 'SendMessage':
        if (typeof answer.MessageId === 'string') append({ send: { queue, id: answer.MessageId, at, message: messageOf(request) } });
        return;
      case 'SendMessageBatch': {
        const entries = new Map((Array.isArray(request.Entries) ? request.Entries : []).filter(isJsonObject).map((entry) => [entry.Id, entry]));
        for (const sent of Array.isArray(answer.Successful) ? answer.Successful.filter(isJsonObject) : []) {
          const entry = entries.get(sent.Id);
          if (entry && typeof sent.MessageId === 'string') append({ send: { queue, id: sent.MessageId, at, message: messageOf(entry) } });
        }
        return;
      }
      case 'ReceiveMessage': {
        const messages = Array.isArray(answer.Messages) ? answer.Messages.filter(isJsonObject) : [];
        const ids: string[] = [];
        for (const message of messages) {
          if (typeof message.MessageId !== 'string' || typeof message.ReceiptHandle !== 'string') continue;
          const previous = handleOf.get(message.MessageId);
          if (previous !== undefined) handles.delete(previous);
          handles.set(message.ReceiptHandle, message.MessageId);
          handleOf.set(message.MessageId, message.ReceiptHandle);
          ids.push(message.MessageId);
        }
        if (ids.length > 0) append({ receive: { queue, ids } });
        return;
      }
      case 'DeleteMessage':
      case 'DeleteMessageBatch': {
        const receipts =
          action === 'DeleteMessage'
            ? [request.ReceiptHandle]
            : (() => {
                const succeeded = new Set((Array.isArray(answer.Successful) ? answer.Successful.filter(isJsonObject) : []).map((entry) => entry.Id));
                return (Array.isArray(request.Entries) ? request.Entries.filter(isJsonObject) : []).filter((entry) => succeeded.has(entry.Id)).map((entry) => entry.ReceiptHandle);
              })();
        const ids: string[] = [];
        for (const receipt of receipts) {
          const id = typeof receipt === 'string' ? handles.get(receipt) : undefined;
          if (id === undefined) continue;
          handles.delete(receipt as string);
          handleOf.delete(id);
          ids.push(id);
        }
        if (ids.length > 0) append({ delete: { ids } });
        return;
      }
      case 'PurgeQueue':
      case 'DeleteQueue':
        append({ purge: { queue } });
        return;
      default:
    }
  };

  const journaled = new Set(['SendMessage', 'SendMessageBatch', 'ReceiveMessage', 'DeleteMessage', 'DeleteMessageBatch', 'PurgeQueue', 'DeleteQueue']);

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readRequestBody(request, maxRequestBytes);
    if (body === undefined) return;
    // The SQS server reads the request as a stream of its own: the same bytes, replayed.
    const replay = Object.assign(Readable.from(body.length > 0 ? [body] : []), { headers: request.headers, method: request.method, url: request.url });
    const target = request.headers['x-amz-target'];
    const action = typeof target === 'string' ? target.split('.')[1] : undefined;
    const json = request.headers['content-type'] === jsonProtocol;
    if (!json && body.length > 0 && /(?:^|&)Action=(?:SendMessage|SendMessageBatch)(?:&|$)/.test(body.toString('latin1')) && !queryProtocolNoted) {
      queryProtocolNoted = true;
      log('[sqs-journal] a send in the Query protocol is served but not kept across a restart (only the JSON protocol is journaled)');
    }
    if (json && action !== undefined && journaled.has(action)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        parsed = undefined;
      }
      if (isJsonObject(parsed)) {
        const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
        response.end = ((...args: unknown[]) => {
          const [chunk] = args;
          if (response.statusCode === 200) {
            try {
              // DeleteMessage and PurgeQueue answer an empty body.
              const text = typeof chunk === 'string' || Buffer.isBuffer(chunk) ? chunk.toString() : '';
              const answer: unknown = text === '' ? {} : JSON.parse(text);
              if (isJsonObject(answer)) observe(action, parsed, answer);
            } catch (error) {
              if (!(error instanceof SyntaxError)) {
                // The journal could not be written: the client must not take the answer as kept.
                log(`[sqs-journal] ${action} not journaled: ${String(error)}`);
                response.statusCode = 500;
                response.setHeader('x-amzn-query-error', 'InternalError;Receiver');
                return end(JSON.stringify({ __type: 'com.amazonaws.sqs#InternalError', message: 'The local journal could not be written.' }));
              }
            }
          }
          return end(...args);
        }) as typeof response.end;
      }
    }
    requestHandler(replay as unknown as IncomingMessage, response);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`[sqs-journal] unexpected failure: ${String(error)}`);
      if (!response.headersSent) {
        response.statusCode = 500;
        response.end();
      } else response.destroy();
    });
  });
  const port = await listen(server, options.port, options.hostname);
  const endpoint = `http://${options.hostname}:${port}`;

  const call = async (action: string, input: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const answer = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': jsonProtocol, 'x-amz-target': `AmazonSQS.${action}` },
      body: JSON.stringify(input),
    });
    const text = await answer.text();
    if (!answer.ok) throw new Error(`${action} answered ${answer.status}: ${text.slice(0, 200)}`);
    return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  };

  const restore: JournaledSqsServer['restore'] = async () => {
    const live = liveMessages(readJournal(file));
    const urls = new Map<string, string | undefined>();
    const urlOf = async (queue: string) => {
      if (!urls.has(queue)) urls.set(queue, await call('GetQueueUrl', { QueueName: queue }).then((answer) => answer.QueueUrl as string, () => undefined));
      return urls.get(queue);
    };
    /** A queue's dead-letter queue and its maxReceiveCount, or undefined. */
    const redrive = new Map<string, { deadLetter: string; maxReceiveCount: number } | undefined>();
    const redriveOf = async (queue: string) => {
      if (!redrive.has(queue)) {
        const url = await urlOf(queue);
        const attributes = url === undefined ? undefined : ((await call('GetQueueAttributes', { QueueUrl: url, AttributeNames: ['RedrivePolicy'] })).Attributes as Record<string, string> | undefined);
        const policy = attributes?.RedrivePolicy ? (JSON.parse(attributes.RedrivePolicy) as { deadLetterTargetArn: string; maxReceiveCount: number | string }) : undefined;
        redrive.set(queue, policy ? { deadLetter: policy.deadLetterTargetArn.split(':').at(-1) as string, maxReceiveCount: Number(policy.maxReceiveCount) } : undefined);
      }
      return redrive.get(queue);
    };
    const kept: JournalRecord[] = [];
    let deadLettered = 0;
    let unknownQueue = 0;
    const now = clock();
    // The re-sends are this start's own: not journaled as they go, the journal is rewritten with them at the end (a
    // kill before that leaves the old journal, and the next start restores from it again).
    journaling = false;
    try {
      for (const message of live) {
        // Received as often as its queue allows and not deleted: AWS moves it to the dead-letter queue once its last
        // receive's visibility ends, so that is where it goes back.
        const policy = await redriveOf(message.queue);
        const queue = policy && message.receives >= policy.maxReceiveCount ? policy.deadLetter : message.queue;
        if (queue !== message.queue) deadLettered += 1;
        const url = await urlOf(queue);
        if (url === undefined) {
          unknownQueue += 1;
          log(`[sqs-journal] message ${message.id} was in queue ${queue}, which this stack no longer has: not restored`);
          continue;
        }
        const delayLeft = Math.max(0, Math.ceil((message.at + (message.message.DelaySeconds ?? 0) * 1000 - now) / 1000));
        const { DelaySeconds: _delay, ...rest } = message.message;
        const answer = await call('SendMessage', { QueueUrl: url, ...rest, ...(delayLeft > 0 ? { DelaySeconds: delayLeft } : {}) });
        kept.push({ send: { queue, id: answer.MessageId as string, at: message.at, message: message.message } });
      }
      const next = `${file}.next`;
      writeFileSync(next, kept.map((record) => `${JSON.stringify(record)}\n`).join(''));
      renameSync(next, file);
    } finally {
      journaling = true;
    }
    return { restored: kept.length, deadLettered, unknownQueue };
  };

  return { server, endpoint, restore };
};
