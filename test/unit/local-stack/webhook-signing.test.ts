// Unit: the local stack's signer for the reference page (infra/local/webhook-signing.ts). It signs the webhook's
// events with the local development secret, for the webhook's path only, only while the stack's webhook accepts that
// secret, and never answers the secret itself.
import { ApiError } from '#shared/errors';
import { documentExamples, operationExamples } from '#shared/openapi/examples/index';
import { operations } from '#shared/operations/index';
import { localWebhookSecret, verifyEventSignature } from '#shared/schemas/webhook-signature';
import { acceptsLocalWebhookSecret, signedWebhookPath, signForReferencePage } from '#infra/local/webhook-signing';

const now = 1_800_000_000;
const exampleBody = JSON.stringify(operationExamples.get('providerWebhook')?.requests?.uploaded?.body);
const request = (value: unknown) => Buffer.from(JSON.stringify(value));
const sign = (value: unknown, contentType = 'application/json', enabled = true) =>
  signForReferencePage(typeof value === 'string' ? Buffer.from(value) : request(value), contentType, enabled, now);
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return [error.status, error.detail];
    throw error;
  }
  throw new Error('not refused');
};

describe('signForReferencePage', () => {
  it("answers the page's webhook example signed now with the development secret, the event otherwise unchanged", () => {
    const signed = JSON.parse(sign({ path: signedWebhookPath, body: exampleBody })) as Record<string, unknown>;
    const { signature, ...event } = signed;
    expect(event).toEqual(documentExamples.event);
    expect(signature).not.toBe(JSON.parse(exampleBody).signature);
    expect(verifyEventSignature(signed, { secrets: [localWebhookSecret], nowSeconds: now })).toBe(now);
  });

  it('signs an event without a signature too, and the path with a trailing slash (the gateway routes it)', () => {
    const signed = JSON.parse(sign({ path: `${signedWebhookPath}/`, body: JSON.stringify({ type: 'x', nested: { a: [1, 2] } }) })) as Record<string, unknown>;
    expect(verifyEventSignature(signed, { secrets: [localWebhookSecret], nowSeconds: now })).toBe(now);
  });

  it('never answers the secret', () => {
    expect(sign({ path: signedWebhookPath, body: exampleBody })).not.toContain(localWebhookSecret);
  });

  it.each([
    ...operations.filter((operation) => operation.operationId !== 'providerWebhook').map((operation) => `/api${operation.path}`),
    '/Platform/DocumentAnalyser/Provider/Webhook',
    '/api/Platform/DocumentAnalyser/Provider/Webhook/x',
    '/api/Platform/DocumentAnalyser/Provider/webhook',
    '/api/Platform/DocumentAnalyser/Provider/../Provider/Webhook',
    '/api/docs/sign-webhook',
    'http://127.0.0.1:3000/api/Platform/DocumentAnalyser/Provider/Webhook',
    '',
  ])('refuses to sign for %j: the webhook path only (400)', (path) => {
    expect(refusal(() => sign({ path, body: exampleBody }))).toEqual([400, `Only requests to ${signedWebhookPath} are signed.`]);
  });

  it.each([
    ['no path', { body: exampleBody }],
    ['a path that is no string', { path: [signedWebhookPath], body: exampleBody }],
    ['null', null],
    ['an array', [signedWebhookPath, exampleBody]],
  ])('refuses %s (400)', (_name, value) => {
    expect(refusal(() => sign(value))[0]).toBe(400);
  });

  it.each([
    ['a body that is no string', { path: signedWebhookPath, body: JSON.parse(exampleBody) }],
    ['a body that is not JSON', { path: signedWebhookPath, body: '{"type":' }],
    ['a JSON array', { path: signedWebhookPath, body: '[1]' }],
    ['JSON null', { path: signedWebhookPath, body: 'null' }],
    ['a JSON string', { path: signedWebhookPath, body: '"event"' }],
    ['an event with a lone surrogate', { path: signedWebhookPath, body: '{"type":"\\ud800"}' }],
  ])('refuses %s (400)', (_name, value) => {
    expect(refusal(() => sign(value))[0]).toBe(400);
  });

  it('refuses a request that is not JSON (400) or not sent as JSON (415)', () => {
    expect(refusal(() => sign('path=x'))[0]).toBe(400);
    for (const contentType of [undefined, '', 'text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
      const refused = refusal(() => signForReferencePage(request({ path: signedWebhookPath, body: exampleBody }), contentType, true, now));
      expect([contentType, refused[0]]).toEqual([contentType, 415]);
    }
    expect(JSON.parse(sign({ path: signedWebhookPath, body: exampleBody }, 'application/json; charset=utf-8')).signature).toMatch(/^t=1800000000,v1=/);
  });

  it("refuses everything (403) on a stack whose webhook does not accept the development secret, first", () => {
    expect(refusal(() => sign({ path: signedWebhookPath, body: exampleBody }, 'application/json', false))[0]).toBe(403);
    expect(refusal(() => sign('x', 'text/plain', false))[0]).toBe(403);
  });
});

describe('acceptsLocalWebhookSecret', () => {
  it.each([
    [localWebhookSecret, true],
    [JSON.stringify({ current: 'a-secret-of-my-own-0123456789', previous: localWebhookSecret }), true],
    [JSON.stringify([localWebhookSecret]), true],
    ['a-secret-of-my-own-0123456789', false],
    [JSON.stringify({ current: 'a-secret-of-my-own-0123456789' }), false],
    ['', false],
  ])('%s: %s', (value, expected) => {
    expect(acceptsLocalWebhookSecret(value)).toBe(expected);
  });
});
