// Test support: the document-events endpoints over HTTP for end-to-end tests (the shared local stack's gateway, the
// SQS server and the emulated event source mapping behind it), and the whole-response view their tests compare.
import { readFile } from 'node:fs/promises';
import { expect } from '@jest/globals';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { coerceToSchema } from '#shared/http/codecs/coerce';
import { parseXml } from '#shared/http/codecs/xml';
import { DocumentStateView } from '#shared/schemas/webhook';
import { documentPath, eventually, webhookPath } from './document-events';
import { api, apiBaseUrl } from './http';
import { problemOutcome, securityHeaders, uuidPattern } from './responses';
import { localSqsClient, requireLocalEndpoints } from './local-endpoints';
import { currentRunLogFile } from './local-stack-process';

export const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// The whole-response view and the header sets are those of responses.ts, shared by every end-to-end test.
export { responseView as viewOf, securityHeaders, uuidPattern, type ResponseView } from './responses';

export const jsonHeaders = (extra: Readonly<Record<string, unknown>> = {}) => ({
  'content-type': 'application/json; charset=utf-8',
  ...securityHeaders,
  'x-request-id': expect.stringMatching(uuidPattern),
  ...extra,
});

export const problemHeaders = (format: 'json' | 'xml' = 'json', extra: Readonly<Record<string, unknown>> = {}) => ({
  'content-type': `application/problem+${format}; charset=utf-8`,
  ...securityHeaders,
  'x-request-id': expect.stringMatching(uuidPattern),
  ...extra,
});

export const problemType = (slug: string) => `tag:business-platform.api,2026:problems/${slug}`;

export const problem = (status: number, title: string, detail: unknown, extra: Readonly<Record<string, unknown>> = {}) => ({
  type: 'about:blank',
  title,
  status,
  detail,
  instance: expect.stringMatching(uuidPattern),
  ...extra,
  ...problemOutcome(status, detail, Array.isArray(extra.errors) ? (extra.errors as object[]) : []),
});

export const validationProblem = (errors: readonly object[], detail = 'The request is not valid; see errors for each field.') =>
  problem(400, 'Request validation failed', detail, { type: problemType('validation-failed'), errors });

/** POSTs a body (an object as JSON, a string as is) to the webhook. */
export const postWebhook = (body: unknown, headers: Readonly<Record<string, string>> = {}) =>
  api(webhookPath, { method: 'POST', body, headers: typeof body === 'string' ? { 'Content-Type': 'application/json', ...headers } : headers });

export const getDocument = (documentId: string, token: string, headers: Readonly<Record<string, string>> = {}) =>
  api<DocumentStateView>(documentPath(documentId), { token, headers });

/** Polls the read endpoint until the document exists and `until` holds (what the consumer applies is asynchronous). */
export const documentWhen = (
  documentId: string,
  token: string,
  until: (view: DocumentStateView) => boolean,
  what: string,
): Promise<DocumentStateView> =>
  eventually(async () => {
    const response = await getDocument(documentId, token);
    return response.status === 200 && until(response.json) ? response.json : undefined;
  }, what);

/** Reads an XML answer the way the service reads XML (its parser and coercion) and validates it with the schema. */
export const parseDocumentXml = (xml: string): DocumentStateView =>
  DocumentStateView.parse(coerceToSchema(parseXml(xml), DocumentStateView, 'text'));

/**
 * Resolves once the shared document-events queue holds nothing, visible or in flight: every message enqueued before
 * has been consumed (the event source mapping deletes a message only after the consumer succeeded).
 */
export const queueDrained = async (timeoutMs = 15_000): Promise<void> => {
  const { documentEventsQueueUrl } = requireLocalEndpoints();
  const sqs = localSqsClient();
  try {
    await eventually(
      async () => {
        const { Attributes = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: documentEventsQueueUrl,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        return Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible) === 0 ? true : undefined;
      },
      'the document-events queue to be drained',
      { timeoutMs },
    );
  } finally {
    sqs.destroy();
  }
};

export interface StackLog {
  readonly text: string;
  /**
   * False when the file is not this run's alone: global-setup.ts writes every run's log to the same path, so a jest
   * run started meanwhile in the same checkout truncates it while both keep writing at their own offsets. Then only
   * the absence of something can be checked.
   */
  readonly ours: boolean;
}

/**
 * The local stack's output (gateway, handler and consumer logs), once it holds every one of `needles`: the stack
 * writes it through the jest process, a little after the fact. Throws if this run's log lacks one past `timeoutMs`.
 */
export const readStackLog = async (needles: readonly string[], timeoutMs = 10_000): Promise<StackLog> => {
  // The stack's ready line, the first JSON line of its log, names this run's gateway.
  const readyLine = `"baseUrl":"${apiBaseUrl()}"`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = await readFile(currentRunLogFile(), 'utf8').catch(() => '');
    // Another stack's ready line, or the hole a writer leaves past the end of a truncated file: not ours alone.
    const intact = text.includes(readyLine) && text.split('"ready":true').length === 2 && !text.includes('\u0000');
    if (!intact) return { text, ours: false };
    const missing = needles.filter((needle) => !text.includes(needle));
    if (missing.length === 0) return { text, ours: true };
    if (Date.now() > deadline) throw new Error(`${currentRunLogFile()} lacks ${missing.length} of ${needles.length} expected entries: ${missing.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};
