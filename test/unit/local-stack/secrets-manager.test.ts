// Unit: the local Secrets Manager emulation through the SDK's own client: GetSecretValue by ARN, name or partial
// ARN, versions and staging labels as PutSecretValue moves them, Secrets Manager's errors, no value in the log; the
// access the IAM edge derives from a request, and the webhook secret's local SecretString.
import { GetSecretValueCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { secretsManagerAccess } from '#infra/local/iam-edge';
import { secretArn, startSecretsManagerEmulation, webhookSecretString, type RunningSecretsManager } from '#infra/local/secrets-manager';
import { parseSecretValue } from '#shared/schemas/webhook-signature';

const name = 'test-webhook-secret';
const arn = secretArn(name, 'AbC123');
const firstValue = '{"current":"whsec_first_value_0123456789"}';
const lines: string[] = [];
let secretsManager: RunningSecretsManager;
let client: SecretsManagerClient;

beforeAll(async () => {
  secretsManager = await startSecretsManagerEmulation({ secrets: [{ arn, name, source: 'test secret', secretString: firstValue }], log: (line) => lines.push(line) });
  client = new SecretsManagerClient({ endpoint: secretsManager.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
});
afterAll(async () => {
  client.destroy();
  await secretsManager.close();
});

/** A raw request in the JSON 1.1 protocol (what the SDK would not send). */
const raw = async (target: string | undefined, body: string) => {
  const response = await fetch(secretsManager.endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.1', ...(target ? { 'X-Amz-Target': target } : {}) },
    body,
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};

describe('the local Secrets Manager', () => {
  it('answers GetSecretValue by ARN, name and partial ARN with the AWSCURRENT version', async () => {
    for (const secretId of [arn, name, arn.slice(0, -'-AbC123'.length)]) {
      const answer = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
      expect(answer).toMatchObject({ ARN: arn, Name: name, SecretString: firstValue, VersionStages: ['AWSCURRENT'] });
      expect(answer.VersionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.CreatedDate).toBeInstanceOf(Date);
    }
    expect(secretsManager.secretArnOf(name)).toBe(arn);
    expect(secretsManager.secretArnOf('other')).toBeUndefined();
  });

  it('refuses an unknown secret, a missing SecretId and an unknown version as AWS does', async () => {
    for (const secretId of ['other', `${arn}x`, secretArn('other', 'AbC123')]) {
      await expect(client.send(new GetSecretValueCommand({ SecretId: secretId }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    }
    await expect(client.send(new GetSecretValueCommand({ SecretId: name, VersionStage: 'AWSPENDING' }))).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(client.send(new GetSecretValueCommand({ SecretId: name, VersionId: '00000000-0000-4000-8000-000000000000' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    expect(await raw('secretsmanager.GetSecretValue', '{}')).toMatchObject({ status: 400, json: { __type: 'InvalidParameterException' } });
  });

  it('rotates with PutSecretValue: the new version is AWSCURRENT, the former AWSPREVIOUS, each readable by id or label', async () => {
    const before = await client.send(new GetSecretValueCommand({ SecretId: arn }));
    const rotated = '{"current":"whsec_second_value_012345678","previous":"whsec_first_value_0123456789"}';
    const put = await client.send(new PutSecretValueCommand({ SecretId: name, SecretString: rotated }));
    expect(put).toMatchObject({ ARN: arn, Name: name, VersionStages: ['AWSCURRENT'] });
    // The same token and value again: the same version (idempotent); another value under it: refused.
    expect(await client.send(new PutSecretValueCommand({ SecretId: name, SecretString: rotated, ClientRequestToken: put.VersionId }))).toMatchObject({
      VersionId: put.VersionId,
    });
    await expect(client.send(new PutSecretValueCommand({ SecretId: name, SecretString: 'another', ClientRequestToken: put.VersionId }))).rejects.toMatchObject({
      name: 'ResourceExistsException',
    });

    expect(await client.send(new GetSecretValueCommand({ SecretId: arn }))).toMatchObject({ SecretString: rotated, VersionId: put.VersionId });
    expect(await client.send(new GetSecretValueCommand({ SecretId: arn, VersionStage: 'AWSPREVIOUS' }))).toMatchObject({
      SecretString: firstValue,
      VersionId: before.VersionId,
      VersionStages: ['AWSPREVIOUS'],
    });
    // A third value: the first version loses AWSPREVIOUS (still readable by its id, with no label).
    const third = await client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: '{"current":"whsec_third_value_0123456789"}' }));
    expect(await client.send(new GetSecretValueCommand({ SecretId: arn, VersionStage: 'AWSPREVIOUS' }))).toMatchObject({ VersionId: put.VersionId });
    expect(await client.send(new GetSecretValueCommand({ SecretId: arn, VersionId: before.VersionId }))).toMatchObject({ SecretString: firstValue, VersionStages: [] });
    expect(await client.send(new GetSecretValueCommand({ SecretId: arn, VersionId: third.VersionId, VersionStage: 'AWSCURRENT' }))).toMatchObject({
      VersionId: third.VersionId,
    });
    await expect(client.send(new GetSecretValueCommand({ SecretId: arn, VersionId: third.VersionId, VersionStage: 'AWSPREVIOUS' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });

  it('refuses a PutSecretValue without a string, and requests that are not its protocol', async () => {
    await expect(client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: '' }))).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(client.send(new PutSecretValueCommand({ SecretId: arn, SecretBinary: Buffer.from('x') }))).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'x'.repeat(65_537) }))).rejects.toMatchObject({ name: 'InvalidParameterException' });
    expect(await raw('secretsmanager.DeleteSecret', '{}')).toMatchObject({ status: 400, json: { __type: 'UnknownOperationException' } });
    expect(await raw(undefined, '{}')).toMatchObject({ status: 400, json: { __type: 'UnknownOperationException' } });
    expect(await raw('secretsmanager.GetSecretValue', '{')).toMatchObject({ status: 400, json: { __type: 'SerializationException' } });
    expect(await raw('secretsmanager.GetSecretValue', '[]')).toMatchObject({ status: 400, json: { __type: 'SerializationException' } });
  });

  it('never logs a secret value', () => {
    expect(lines.some((line) => line.includes('new version'))).toBe(true);
    for (const line of lines) expect(line).not.toMatch(/whsec_/);
  });
});

describe('the IAM edge on a Secrets Manager request', () => {
  const arnOf = (secretId: string) => (secretId === name || secretId === arn ? arn : undefined);

  it('needs secretsmanager:<Operation> on the full ARN its SecretId names, else on *', () => {
    expect(secretsManagerAccess('GetSecretValue', { SecretId: name }, arnOf)).toEqual([{ action: 'secretsmanager:GetSecretValue', resource: arn }]);
    expect(secretsManagerAccess('PutSecretValue', { SecretId: arn }, arnOf)).toEqual([{ action: 'secretsmanager:PutSecretValue', resource: arn }]);
    expect(secretsManagerAccess('GetSecretValue', { SecretId: 'other' }, arnOf)).toEqual([{ action: 'secretsmanager:GetSecretValue', resource: '*' }]);
    expect(secretsManagerAccess('GetSecretValue', undefined, arnOf)).toEqual([{ action: 'secretsmanager:GetSecretValue', resource: '*' }]);
  });
});

describe('the local webhook secret', () => {
  it('is held in the deployed form: a JSON object as given, a list as current, previous, ...', () => {
    expect(webhookSecretString('{"current":"whsec_a_0123456789abcdef"}')).toBe('{"current":"whsec_a_0123456789abcdef"}');
    const list = 'whsec_new_0123456789abcdef, whsec_old_0123456789abcdef,whsec_older_0123456789abc';
    expect(JSON.parse(webhookSecretString(list))).toEqual({
      current: 'whsec_new_0123456789abcdef',
      previous: 'whsec_old_0123456789abcdef',
      previous2: 'whsec_older_0123456789abc',
    });
    const array = JSON.stringify(['whsec_new_0123456789abcdef', 'whsec_old_0123456789abcdef']);
    expect(JSON.parse(webhookSecretString(array))).toEqual({ current: 'whsec_new_0123456789abcdef', previous: 'whsec_old_0123456789abcdef' });
    // The webhook accepts exactly what it would have accepted from WEBHOOK_SECRETS.
    for (const values of [list, array, 'whsec_single_0123456789abcdef', '"whsec_quoted_0123456789abcdef"']) expect(parseSecretValue(webhookSecretString(values))).toEqual(parseSecretValue(values));
    // Nothing the webhook would accept: the stack does not start.
    for (const values of ['', 'short', '{"current":"short"}']) expect(() => webhookSecretString(values)).toThrow('WEBHOOK_SECRETS holds no usable secret');
  });
});
