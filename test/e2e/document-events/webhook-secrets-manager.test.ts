// E2E: the webhook runs its AWS code path locally. Its function keeps WEBHOOK_SECRET_ARN and reads the signing secret
// from the local Secrets Manager (infra/local/secrets-manager.ts) through the IAM edge, with the traced client,
// GetSecretValue and the five-minute cache of shared/document-events/secrets.ts. On a stack of its own, started with
// the fault mode's control endpoint and one execution environment for the webhook (--max-environments 1), so which
// environment holds which cached secret is known:
// 1. an event signed with the secret the local Secrets Manager holds is accepted;
// 2. a rotation (PutSecretValue of {"current": new, "previous": old}): the old secret still verifies; the new one is
//    refused by the warm environment, whose cache still holds the value it read (for up to five minutes, as on
//    AWS), and accepted once a fresh environment reads the rotated value (the process is ended by a fault rule);
// 3. Secrets Manager failing (an InternalServiceError, throttling) while the environment holds no cached value: 503
//    with Retry-After and a problem body, nothing sent to the queue, the fault and its cause in the log, no secret
//    value in any log line; once it answers again the event is accepted.
// The IAM edge refusing the webhook's GetSecretValue (its role without it) is in test/e2e/platform/template-iam.test.ts.
import { join } from 'node:path';
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { FaultRule } from '#infra/local/faults';
import { localWebhookSecret } from '#shared/schemas/webhook-signature';
import { freshDocumentId, freshOrganisationId, idOf, providerEvent, signed, webhookPath } from '#test/support/document-events';
import { clearFaults, firedFaults, forgetFiredFaults, setFaults } from '#test/support/faults';
import { lineWith, logOnceItHolds, repoRoot, spawnLocalStack, type LocalStackProcess } from '#test/support/local-stack-process';

const logFile = join(repoRoot, '.local', `webhook-secrets-manager-e2e-${process.pid}.log`);
const secretName = 'local-webhook-signing-secret';
const rotatedSecret = 'whsec_rotated_e2e_0123456789abcdef';
let stack: LocalStackProcess;
let faultsEndpoint: string;
let secretsManager: SecretsManagerClient;

beforeAll(async () => {
  stack = await spawnLocalStack({ faults: 'control', maxEnvironments: 1, logFile });
  faultsEndpoint = stack.ready.faultsEndpoint!;
  secretsManager = new SecretsManagerClient({
    endpoint: stack.ready.secretsManagerEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}, 180_000);

afterAll(async () => {
  secretsManager?.destroy();
  await stack?.stop();
});

afterEach(async () => {
  await clearFaults(faultsEndpoint);
  await forgetFiredFaults(faultsEndpoint);
});

const organisationId = freshOrganisationId();
const freshEvent = () => providerEvent('document.uploaded', { organisationId, documentId: freshDocumentId('secrets') });

const post = async (body: unknown) => {
  const response = await fetch(`${stack.ready.baseUrl}${webhookPath}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
};


/** Records every SendMessage the webhook makes (a rule whose effect changes nothing), so a test can count them. */
const sendProbe: FaultRule = { name: 'webhook-sends', service: 'sqs', operation: 'SendMessage', caller: 'providerWebhook', effect: { type: 'latency', ms: 0 } };
const sends = async () => (await firedFaults(faultsEndpoint)).filter((fault) => fault.rule === sendProbe.name);

/** Ends the webhook's one environment after its next answer: the invocation after it starts with an empty cache. */
const recycleWebhookEnvironment = async () => {
  await setFaults(faultsEndpoint, {
    rules: [{ name: 'recycle', service: 'lambda', operation: 'invoke', caller: 'providerWebhook', times: 1, effect: { type: 'crash', when: 'between-calls' } }],
  });
  expect((await post(signed(freshEvent()))).status).toBe(202);
  expect((await firedFaults(faultsEndpoint)).map((fault) => fault.rule)).toEqual(['recycle']);
  await clearFaults(faultsEndpoint);
};

describe('the webhook secret, read from the local Secrets Manager', () => {
  it('is the template secret holding the local webhook secret, and an event signed with it is accepted', async () => {
    const held = await secretsManager.send(new GetSecretValueCommand({ SecretId: secretName }));
    expect(held.ARN).toMatch(/^arn:aws:secretsmanager:us-east-1:123456789012:secret:local-webhook-signing-secret-[A-Za-z0-9]{6}$/);
    expect(held.VersionStages).toEqual(['AWSCURRENT']);
    expect(JSON.parse(held.SecretString!)).toEqual({ current: localWebhookSecret });

    await setFaults(faultsEndpoint, { rules: [sendProbe] });
    const event = freshEvent();
    const answer = await post(signed(event, { secret: JSON.parse(held.SecretString!).current as string }));
    expect(answer).toMatchObject({ status: 202, json: { eventId: idOf(event), status: 'queued' } });
    expect(await sends()).toHaveLength(1);
    expect(await post(signed(freshEvent(), { secret: rotatedSecret }))).toMatchObject({ status: 401 });
  });

  it('rotates: the old secret keeps verifying; the new one verifies once an environment reads the rotated value', async () => {
    // The warm environment has read (and cached) the secret.
    expect((await post(signed(freshEvent()))).status).toBe(202);
    const put = await secretsManager.send(
      new PutSecretValueCommand({ SecretId: secretName, SecretString: JSON.stringify({ current: rotatedSecret, previous: localWebhookSecret }) }),
    );
    expect(put.VersionStages).toEqual(['AWSCURRENT']);

    // Within the cache's five minutes the warm environment still verifies with the value it read.
    expect((await post(signed(freshEvent()))).status).toBe(202);
    expect((await post(signed(freshEvent(), { secret: rotatedSecret }))).status).toBe(401);

    // A fresh environment reads the rotated value: both secrets verify.
    await recycleWebhookEnvironment();
    expect((await post(signed(freshEvent(), { secret: rotatedSecret }))).status).toBe(202);
    expect((await post(signed(freshEvent()))).status).toBe(202);
  });
});

describe('Secrets Manager failing', () => {
  const failures: FaultRule['effect'][] = [
    { type: 'error', code: 'InternalServiceError' },
    { type: 'error', code: 'ThrottlingException' },
  ];

  it.each(failures)('answers 503 with Retry-After while GetSecretValue fails ($code), enqueuing nothing, leaking no secret', async (effect) => {
    // An environment with no cached value: the first invocation after this one reads Secrets Manager.
    await recycleWebhookEnvironment();
    await setFaults(faultsEndpoint, { rules: [{ name: 'secrets-down', service: 'secretsmanager', operation: 'GetSecretValue', effect }, sendProbe] });

    const answer = await post(signed(freshEvent(), { secret: rotatedSecret }));
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(answer.json).toMatchObject({ status: 503, detail: 'The event cannot be verified right now; retry shortly.' });
    const failed = (await firedFaults(faultsEndpoint)).filter((fault) => fault.rule === 'secrets-down');
    // The SDK's attempts, each failed; no SendMessage.
    expect(failed.length).toBeGreaterThanOrEqual(2);
    expect(failed.every((fault) => fault.caller === 'providerWebhook' && fault.operation === 'GetSecretValue')).toBe(true);
    expect(await sends()).toEqual([]);

    // Secrets Manager answers again: the provider's retry is accepted (and sent once).
    await setFaults(faultsEndpoint, { rules: [sendProbe] });
    expect((await post(signed(freshEvent(), { secret: rotatedSecret }))).status).toBe(202);
    expect(await sends()).toHaveLength(1);

    const code = effect.type === 'error' ? effect.code : '';
    const faultLine = `[fault] secrets-down secretsmanager.GetSecretValue caller=providerWebhook -> error code=${code}`;
    const functionLine = ['"function_name":"providerWebhook"', `"cause":{"errorName":"${code}"`];
    // Both lines reach the log a little after the answers they explain.
    const log = await logOnceItHolds(logFile, (text) => text.includes(faultLine) && lineWith(text, ...functionLine) !== undefined, "the fault's and the webhook's lines");
    expect(log).toContain(faultLine);
    // The function's line of the 503 names the dependency's error (its class, never its message).
    const failure = lineWith(log, ...functionLine);
    expect(failure).toContain('"level":"ERROR"');
    // The bundle is minified: the error names itself (test/unit/observability/error-names.test.ts), so the line
    // reads ServiceUnavailable, not the minified class name.
    expect(failure).toContain('"errorName":"ServiceUnavailable"');
    for (const secret of [localWebhookSecret, rotatedSecret]) expect(log).not.toContain(secret);
  });
});
