// Integration: `npm run sam:env` against this run's stack. What can be checked without SAM CLI and Docker: the
// --env-vars file gives every function of the synthesized API template a value for every variable sam local would
// leave empty (anything but text in the template: Fn::ImportValue, parameter Refs), each value the running stack's,
// and every variable it sets is declared by that function in the SAM template (sam local ignores any other).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assemblyStacks, defaultAssemblyDir } from '#infra/local/cloud-assembly';
import type { CfnTemplate } from '#infra/local/template';
import { localIssuer } from '#shared/auth/tokens';
import { queueDefinitions } from '#shared/events/queues';
import { localWebhookSecretArn } from '#infra/local/stack';
import { requireLocalEndpoints } from '#test/support/local-endpoints';
import { repoRoot } from '#test/support/local-stack-process';

const out = mkdtempSync(join(tmpdir(), 'sam-env-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

type Variables = Record<string, unknown>;
const functionVariables = (template: CfnTemplate): Map<string, Variables> =>
  new Map(
    Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .map(([id, resource]) => [id, (resource.Properties as { Environment?: { Variables?: Variables } }).Environment?.Variables ?? {}]),
  );

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

let environment: Record<string, Record<string, string>>;
let template: CfnTemplate;
let samTemplate: CfnTemplate;
let stdout: string;

beforeAll(() => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  const pid = process.env.LOCAL_STACK_PID as string;
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'infra/local/sam-env.ts', '--pid', pid, '--out', join(out, 'env.json')], {
    cwd: repoRoot,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) throw new Error(`sam-env exited ${result.status}: ${result.stderr}`);
  stdout = result.stdout;
  environment = readJson(join(out, 'env.json'));
  template = readJson(join(defaultAssemblyDir, `${assemblyStacks.api}.template.json`));
  samTemplate = readJson(join(defaultAssemblyDir, `${assemblyStacks.api}.sam.template.json`));
});

it('prints the files and the exact sam line', () => {
  expect(stdout).toContain(`sam local start-api -t cdk.out/${assemblyStacks.api}.sam.template.json --env-vars `);
  expect(stdout).toContain('--add-host host.docker.internal:host-gateway');
  // Not npm start's port (3000 by default, SAM's default too): the stack keeps running beside SAM.
  expect(stdout).toContain('--port 3001');
});

it('gives every function a value for every variable sam local would leave empty', () => {
  const functions = functionVariables(template);
  expect([...Object.keys(environment)].sort()).toEqual([...functions.keys()].sort());
  const unresolved: string[] = [];
  for (const [id, variables] of functions) {
    for (const [name, value] of Object.entries(variables)) {
      if (typeof value === 'string') continue;
      // The setting locally replaced by another variable is emptied on purpose (the replacement is checked below).
      const emptied = name === 'AUTH_JWKS_URL';
      if (!(name in environment[id]!) || (environment[id]![name] === '') !== emptied) unresolved.push(`${id}.${name}`);
    }
  }
  expect(unresolved).toEqual([]);
});

it('sets only variables the SAM template declares for that function (sam local ignores any other)', () => {
  const declared = functionVariables(samTemplate);
  const undeclared = Object.entries(environment).flatMap(([id, variables]) =>
    Object.keys(variables).filter((name) => !(name in (declared.get(id) ?? {}))).map((name) => `${id}.${name}`),
  );
  expect(undeclared).toEqual([]);
  // The SAM template is the API template otherwise: same functions, same code.
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    expect((samTemplate.Resources[id]!.Properties as { Code: unknown }).Code).toEqual((resource.Properties as { Code: unknown }).Code);
  }
});

it('points at this run\'s stack, as a container reaches the host', () => {
  const local = requireLocalEndpoints();
  const port = (url: string) => new URL(url).port;
  for (const [id, variables] of Object.entries(environment)) {
    if ('TABLE_NAME' in variables) expect({ id, table: variables.TABLE_NAME }).toEqual({ id, table: local.tableName });
    expect(new URL(variables.AWS_ENDPOINT_URL_DYNAMODB!).host).toBe(`host.docker.internal:${port(local.dynamodbEndpoint)}`);
    expect(new URL(variables.AWS_ENDPOINT_URL_SQS!).host).toBe(`host.docker.internal:${port(local.sqsEndpoint)}`);
    for (const definition of queueDefinitions) {
      const url = variables[definition.urlVariable];
      if (url !== undefined) expect(url).toMatch(new RegExp(`^http://host\\.docker\\.internal:${port(local.sqsEndpoint)}/.*${definition.localQueueName}$`));
    }
    expect(new URL(variables.AWS_ENDPOINT_URL_SECRETS_MANAGER!).host).toBe(`host.docker.internal:${port(process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER!)}`);
    // The webhook reads the stack's secret from its Secrets Manager, as on AWS (no values in the environment).
    if ('WEBHOOK_SECRET_ARN' in variables) expect({ id, arn: variables.WEBHOOK_SECRET_ARN, values: variables.WEBHOOK_SECRETS }).toEqual({ id, arn: localWebhookSecretArn, values: undefined });
    if ('AUTH_ISSUER' in variables) expect(variables).toMatchObject({ AUTH_ISSUER: localIssuer, AUTH_JWKS_URL: '', AUTH_HS256_SECRET: expect.any(String) });
  }
});
