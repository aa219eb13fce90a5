// Test support: document events as the provider sends them (signed like its reference implementation), ids no
// other test uses, and bounded polling for what the queue consumer applies asynchronously.
import { randomUUID } from 'node:crypto';
import { applyEvent, type DocumentEvent, type DocumentState } from '#shared/document-events/state';
import { eventIdOf, localWebhookSecret, signEvent } from '#shared/schemas/webhook-signature';

/** An event of the provider, before it is signed: the four fields we read, plus anything else it sends. */
export interface ProviderEvent {
  readonly type: string;
  readonly userId: string;
  readonly organisationId: string;
  readonly data: { readonly object: { readonly id: string; readonly [key: string]: unknown }; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

export type SignedEvent = ProviderEvent & { readonly signature: string };

/** An organisation id a bearer token may carry (`[A-Za-z0-9_.:-]+`) and no other test uses. */
export const freshOrganisationId = (): string => `org_${randomUUID().replaceAll('-', '')}`;

/** A document id no other test uses. */
export const freshDocumentId = (label = 'doc'): string => `${label}-${randomUUID()}`;

/** A document of an organisation no other test uses. */
export const freshDocument = () => ({ organisationId: freshOrganisationId(), documentId: freshDocumentId() });

/** A document event as the consumer hands it to the store; its id is derived from its content, as the webhook's. */
export const documentEvent = (
  doc: { readonly organisationId: string; readonly documentId: string },
  type: string,
  t: number,
  object: Record<string, unknown> = {},
  userId = 'user-1',
): DocumentEvent => {
  const objectJson = JSON.stringify({ id: doc.documentId, ...object });
  return {
    eventId: eventIdOf({ type, userId, organisationId: doc.organisationId, data: { object: JSON.parse(objectJson) as unknown } }),
    type,
    t,
    userId,
    organisationId: doc.organisationId,
    documentId: doc.documentId,
    objectJson,
  };
};

/** The state the events produce applied one by one in `t` order: what any arrival order must end in. */
export const inOrderState = (events: readonly DocumentEvent[]): DocumentState =>
  [...events].sort((a, b) => a.t - b.t).reduce<DocumentState | undefined>(applyEvent, undefined) as DocumentState;

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export interface EventOptions {
  readonly organisationId: string;
  readonly documentId: string;
  readonly userId?: string;
  /** Members of `data.object` besides its id (they make two events of one type distinct). */
  readonly object?: Readonly<Record<string, unknown>>;
}

export const providerEvent = (type: string, { organisationId, documentId, userId = 'user-1', object = {} }: EventOptions): ProviderEvent => ({
  type,
  userId,
  organisationId,
  data: { object: { id: documentId, ...object } },
});

export interface SignOptions {
  /** Unix seconds; default now. */
  readonly t?: number;
  /** Default: the local stack's development secret (what the shared stack's webhook accepts). */
  readonly secret?: string;
}

export const signed = (event: ProviderEvent, { t = nowSeconds(), secret = localWebhookSecret }: SignOptions = {}): SignedEvent => ({
  ...event,
  signature: signEvent(event, secret, t),
});

/** The event id the webhook answers and the consumer records: the same for any `t` and any secret. */
export const idOf = (event: ProviderEvent): string => eventIdOf(event);

/** The lowercase hex digests of a signature (`v1=` entries): what must never be logged or echoed. */
export const digestsOf = (signature: string): string[] =>
  signature
    .split(',')
    .filter((entry) => entry.startsWith('v1='))
    .map((entry) => entry.slice(3));

/** ISO 8601 of unix seconds, as the read endpoint shows every event time. */
export const isoOf = (t: number): string => new Date(t * 1000).toISOString();

/** Polls `probe` until it returns something other than undefined; fails after `timeoutMs` saying `what` it awaited. */
export const eventually = async <T>(
  probe: () => Promise<T | undefined>,
  what: string,
  { timeoutMs = 15_000, intervalMs = 100 }: { readonly timeoutMs?: number; readonly intervalMs?: number } = {},
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
};

/** The webhook's path under the API's base URL (and its API Gateway resource). */
export const webhookPath = '/Platform/DocumentAnalyser/Provider/Webhook';

/** The read endpoint of one document; the id is percent-encoded as a client must. */
export const documentPath = (documentId: string): string => `/Platform/DocumentAnalyser/Documents/${encodeURIComponent(documentId)}`;
