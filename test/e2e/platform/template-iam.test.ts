// E2E: the local stack enforces the role policies of the synthesized template, not a second reading of the
// operations manifest. The throwaway assembly (test/support/throwaway-assembly.ts, shared with template-kms),
// synthesized from a test-only app entry whose CDK Aspect removes dynamodb:PutItem from the tenant-location Delete
// function's role policy (the manifest still grants it), is run by a stack of its own: deleting an active location
// (a transaction that Puts the soft-deleted record) must fail as on AWS, with a 5xx, an explained
// AccessDeniedException in the stack's log, and nothing changed. Its provider webhook has no
// secretsmanager:GetSecretValue (the manifest still grants readWebhookSecret): reading its signing secret from the
// local Secrets Manager is refused at the edge, and the webhook answers 503 with Retry-After (it cannot verify the
// event; the provider keeps it and retries), the refusal explained in the log.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readAssemblyStack, resourcesOfType } from '#infra/local/template';
import { operationsById } from '#shared/operations/index';
import { localWebhookSecret } from '#shared/schemas/webhook-signature';
import { freshDocumentId, freshOrganisationId, providerEvent, signed, webhookPath } from '#test/support/document-events';
import { tokenFor } from '#test/support/http';
import { lineWith, logOnceItHolds, spawnLocalStack, type LocalStackProcess } from '#test/support/local-stack-process';
import { throwawayAssembly } from '#test/support/throwaway-assembly';

const synthTimeoutMs = 15 * 60_000;
const workDir = mkdtempSync(join(tmpdir(), 'template-iam-'));
const logFile = join(workDir, 'stack.log');
let assemblyDir: string;
let stack: LocalStackProcess | undefined;

beforeAll(async () => {
  assemblyDir = await throwawayAssembly();
  stack = await spawnLocalStack({ assemblyDir, logFile });
}, synthTimeoutMs);

afterAll(async () => {
  await stack?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const call = async (path: string, token: string, init: { method?: string; body?: unknown } = {}) => {
  const response = await fetch(`${stack!.ready.baseUrl}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: { Authorization: `Bearer ${token}`, ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
};

/** The throwaway assembly's policy document of the role whose logical id starts with `role`, as JSON text. */
const rolePolicyOf = (role: string): string => {
  const api = readAssemblyStack(assemblyDir, 'BusinessPlatform-Api');
  const [, policy] = resourcesOfType(api.template, 'AWS::IAM::Policy').find(([id]) => id.startsWith(role))!;
  return JSON.stringify(policy.Properties?.PolicyDocument);
};

describe('a role policy without dynamodb:PutItem, the manifest unchanged', () => {
  it('is what the throwaway assembly holds', () => {
    expect(operationsById.tenantLocationDelete.tableAccess).toContain('dynamodb:PutItem');
    const actions = rolePolicyOf('TenantLocationDeleteRole');
    expect(actions).toContain('dynamodb:DeleteItem');
    expect(actions).not.toContain('dynamodb:PutItem');
  });

  it('makes deleting an active location fail locally as on AWS, explained in the log, changing nothing', async () => {
    const token = await tokenFor({ tenant: 7_150_001 });
    const created = await call('/TenantLocation/Save', token, { body: { Name: 'Kept by IAM' } });
    expect(created.status).toBe(201);
    const id = created.json!.ID as number;

    const deleted = await call(`/TenantLocation/Delete/${id}`, token, { method: 'DELETE' });
    expect(deleted.status).toBeGreaterThanOrEqual(500);

    const after = await call(`/TenantLocation/Get/${id}`, token);
    expect(after).toEqual({ status: 200, json: created.json });

    const log = await logOnceItHolds(logFile, (text) => lineWith(text, 'AccessDeniedException', 'dynamodb:PutItem') !== undefined, 'the PutItem refusal');
    const refusal = lineWith(log, 'AccessDeniedException', 'dynamodb:PutItem');
    expect(refusal).toContain('tenantLocationDelete may not dynamodb:PutItem on arn:aws:dynamodb:us-east-1:123456789012:table/');
    expect(refusal).toContain('allowed only dynamodb:DeleteItem, dynamodb:GetItem (TenantLocationDeleteRoleDefaultPolicy');
    expect(refusal).toContain('"Effect":"Allow","Action":"dynamodb:PutItem"');
  });
});

describe('a webhook role without secretsmanager:GetSecretValue, the manifest unchanged', () => {
  it('is what the throwaway assembly holds', () => {
    expect(operationsById.providerWebhook.grants).toContain('readWebhookSecret');
    const actions = rolePolicyOf('ProviderWebhookRole');
    expect(actions).toContain('sqs:SendMessage');
    expect(actions).not.toContain('secretsmanager:GetSecretValue');
  });

  it('makes the webhook answer 503 with Retry-After, the refusal explained in the log, no secret in it', async () => {
    const event = providerEvent('document.uploaded', { organisationId: freshOrganisationId(), documentId: freshDocumentId('iam') });
    const response = await fetch(`${stack!.ready.baseUrl}${webhookPath}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(signed(event)),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await response.json()).toMatchObject({ status: 503, detail: 'The event cannot be verified right now; retry shortly.' });

    // The edge's refusal and the function's line of the 503 reach the log after the answer: wait for both.
    const functionLine = ['"function_name":"providerWebhook"', '"cause":{"errorName":"AccessDeniedException"'];
    const log = await logOnceItHolds(
      logFile,
      (text) => lineWith(text, 'AccessDeniedException', 'secretsmanager:GetSecretValue') !== undefined && lineWith(text, ...functionLine) !== undefined,
      "the GetSecretValue refusal and the webhook's line of its 503",
    );
    const refusal = lineWith(log, 'AccessDeniedException', 'secretsmanager:GetSecretValue');
    expect(refusal).toContain('providerWebhook may not secretsmanager:GetSecretValue on arn:aws:secretsmanager:us-east-1:123456789012:secret:local-webhook-signing-secret-');
    // Its statement on the secret is left with no action: it allows nothing, and names nothing in the explanation.
    expect(refusal).toContain('no statement names that resource');
    expect(refusal).toContain('"Effect":"Allow","Action":"secretsmanager:GetSecretValue"');
    // The function's line of the 503 names the dependency's error.
    expect(lineWith(log, ...functionLine)).toContain('"level":"ERROR"');
    expect(log).not.toContain(localWebhookSecret);
  });
});
