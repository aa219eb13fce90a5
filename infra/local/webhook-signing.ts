// Local stack: the reference page's webhook signer. The webhook (providerWebhook) accepts only events signed with the
// provider's secret, which a page cannot hold, so its example answered 401 from the page. Locally, the page's request
// interceptor (reference-page.ts) sends the body it is about to POST to the webhook to this endpoint,
// `POST /api/docs/sign-webhook` `{"path": "<the request's path>", "body": "<the body>"}`, and sends instead the body it
// answers: the same event with a `signature` made now with the local development secret (localWebhookSecret). The
// secret itself never leaves this process.
//   - Local only: the local gateway serves it (gateway.ts); no template route, no function, nothing deployed has it.
//   - The webhook only: any other path is refused (400), as is a body that is not one JSON object.
//   - The development secret only: a stack whose webhook does not accept that secret (started with WEBHOOK_SECRETS of
//     its own) refuses every request (403), so the endpoint never signs with a secret a real provider might hold.
import { ApiError, problemKinds } from '#shared/errors';
import { apiBasePath, operationsById, resourceOf } from '#shared/operations/index';
import { canonicalEvent, InvalidSignature, localWebhookSecret, parseSecretValue, signEvent } from '#shared/schemas/webhook-signature';

/** The endpoint, under the stage (beside the page it serves: `/api/docs/sign-webhook`). */
export const webhookSigningPath = '/docs/sign-webhook';
/** The only path it signs for: the webhook's, under the stage. */
export const signedWebhookPath = `${apiBasePath}${resourceOf(operationsById.providerWebhook.path)}`;
/** The webhook's events are at most an SQS message (256 KiB); the request carries one as a JSON string, escaped. */
export const maxSigningRequestBytes = 1024 * 1024;

/** Whether a stack whose webhook secrets are `secretValues` (WEBHOOK_SECRETS' forms) may sign for the page. */
export const acceptsLocalWebhookSecret = (secretValues: string): boolean => parseSecretValue(secretValues).includes(localWebhookSecret);

const refused = (detail: string) => new ApiError(problemKinds.badRequest, detail);

/**
 * The body the page sends instead: `request`'s event signed now. Throws the ApiError to answer for anything else.
 * `enabled`: the stack's webhook accepts the local development secret.
 */
export const signForReferencePage = (request: Buffer, contentType: string | undefined, enabled: boolean, nowSeconds = Math.floor(Date.now() / 1000)): string => {
  if (!enabled) {
    throw new ApiError(
      problemKinds.forbidden,
      "This stack's webhook does not accept the local development secret (WEBHOOK_SECRETS is set), so the page cannot sign for it: sign events with npm run sign-event -- <event.json> --secret <yours>.",
    );
  }
  if (!/^application\/json\s*(;|$)/i.test(contentType ?? '')) throw new ApiError(problemKinds.unsupportedMediaType, 'Send {"path": ..., "body": ...} as application/json.');
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.toString('utf8'));
  } catch {
    throw refused('The request is not JSON: send {"path": ..., "body": ...}.');
  }
  const { path, body } = (parsed ?? {}) as { path?: unknown; body?: unknown };
  if (typeof path !== 'string' || resourceOf(path) !== signedWebhookPath) throw refused(`Only requests to ${signedWebhookPath} are signed.`);
  if (typeof body !== 'string') throw refused('body must be the request body, as a string.');
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch {
    throw refused('The body is not JSON; the webhook takes one JSON object.');
  }
  if (event === null || typeof event !== 'object' || Array.isArray(event)) throw refused('The body is not a JSON object; the webhook takes one JSON object.');
  const { signature: _signature, ...unsigned } = event as Record<string, unknown>;
  try {
    canonicalEvent(unsigned);
  } catch (error) {
    if (error instanceof InvalidSignature) throw refused('The event has no canonical form (a lone surrogate), so it cannot be signed.');
    throw error;
  }
  return JSON.stringify({ ...unsigned, signature: signEvent(unsigned, localWebhookSecret, nowSeconds) });
};
