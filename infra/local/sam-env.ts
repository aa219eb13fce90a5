// Local tooling: `npm run sam:env` prepares `sam local start-api` against the data of a running local stack.
// `sam local` runs the API stack's functions in Docker but leaves every Fn::ImportValue (table, queues, secret, key,
// task queues, scheduler role) an empty string, and its --env-vars file can only override a variable the template
// declares. So this writes two files:
//   - <assembly>/BusinessPlatform-Api.sam.template.json: the synthesized API template (beside it, so the asset
//     paths hold) where every function also declares the variables that point its SDK at the local stack
//     (AWS_ENDPOINT_URL_*) and the local token secret, and the auth parameters have local defaults;
//   - .local/sam-env.json: per function logical id, a value for every variable the template does not give as
//     text, from the running stack (its state file, stack-state.ts), with endpoints as a container reaches the host.
//     The webhook gets the local secret's ARN and reads it from the stack's Secrets Manager, as on AWS.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseCommandLine } from './command-line';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { defaultAudience, localDevSecret, localIssuer } from '#shared/auth/tokens';
import { environmentVariables } from '#shared/environment';
import { queueDefinitions, taskRunsQueue } from '#shared/events/queues';
import { schedulerEnvironment } from '#shared/operations/grants';
import { assemblyStacks, defaultAssemblyDir } from './cloud-assembly';
import { repoRoot } from './lambda-runtime';
import { localCredentials, localRegion } from './local-aws';
import { localSchedulerRoleArn, localSecretFieldsKeyArn, localWebhookSecretArn } from './stack';
import { findRunningStack, LocalToolError, type StackState } from './stack-state';
import type { CfnTemplate } from './template';

/**
 * The port the printed `sam local start-api` line gives SAM: its default, 3000, is `npm start`'s, whose stack must
 * keep running beside it. SAM CLI mounts the routes without the stage's path part (aws/aws-sam-cli#1483):
 * `http://127.0.0.1:3001/TenantLocation/GetAll`, not `/api/...`.
 */
const samPort = 3001;

const usage = `usage: npm run --silent sam:env -- [--host NAME] [--pid N] [--assembly DIR] [--out FILE]

  --host NAME     How a function's container reaches this machine (default: host.docker.internal; on Linux start
                  sam with --add-host host.docker.internal:host-gateway, or pass the docker bridge address here)
  --pid N         The running stack to use when several run (default: the most recently started)
  --assembly DIR  The cloud assembly whose API template to use (default: cdk.out, as npm start synthesizes it)
  --out FILE      Where to write the --env-vars file (default: .local/sam-env.json)
  -h, --help      Show this help

Then: sam local start-api -t cdk.out/${assemblyStacks.api}.sam.template.json --env-vars .local/sam-env.json \\
        --port ${samPort} --add-host host.docker.internal:host-gateway
      (SAM's own port: npm start holds 3000 by default; SAM mounts the routes without the stage, /TenantLocation/GetAll)`;

/** The variables every function additionally declares in the SAM template: the SDK's endpoints, the local stack's. */
export const endpointVariables = [
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_SQS',
  schedulerEnvironment.endpoint,
  'AWS_ENDPOINT_URL_KMS',
  'AWS_ENDPOINT_URL_SECRETS_MANAGER',
] as const;

type Variables = Record<string, unknown>;
const functionsOf = (template: CfnTemplate): [string, Variables][] =>
  Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
    .map(([logicalId, resource]) => {
      const environment = (resource.Properties as { Environment?: { Variables?: Variables } } | undefined)?.Environment;
      return [logicalId, environment?.Variables ?? {}];
    });

/** Local stand-ins of the template's token issuer settings: the values the local stack gives its own authorizer. */
const localSecretVariables = (variables: Variables): Record<string, string> => ({
  ...(environmentVariables.authIssuer in variables
    ? {
        [environmentVariables.authJwksUrl]: '',
        [environmentVariables.authIssuer]: localIssuer,
        [environmentVariables.authAudience]: defaultAudience,
        [environmentVariables.authHs256Secret]: process.env[environmentVariables.authHs256Secret] ?? localDevSecret,
      }
    : {}),
});

/** The SAM template: the API template with the extra variables declared (empty) and local parameter defaults. */
export const samTemplate = (template: CfnTemplate): CfnTemplate => {
  const copy = structuredClone(template) as { Resources: CfnTemplate['Resources']; Parameters?: Record<string, Record<string, unknown>> };
  for (const [logicalId] of functionsOf(copy as CfnTemplate)) {
    const properties = copy.Resources[logicalId]!.Properties as { Environment?: { Variables?: Variables } };
    const variables = { ...(properties.Environment?.Variables ?? {}) };
    for (const name of [...endpointVariables, ...Object.keys(localSecretVariables(variables))]) if (!(name in variables)) variables[name] = '';
    properties.Environment = { ...properties.Environment, Variables: variables };
  }
  const defaults: Record<string, string> = { AuthIssuer: localIssuer, AuthJwksUrl: 'https://localhost/unused-jwks.json', AuthAudience: defaultAudience };
  for (const [name, value] of Object.entries(defaults)) {
    const parameter = copy.Parameters?.[name];
    if (parameter && parameter.Default === undefined) parameter.Default = value;
  }
  return copy as CfnTemplate;
};

/** By variable name: the value on the running stack of a variable the template does not give as text. */
export type LocalValues = Readonly<Record<string, string>>;

/** The stack's values, with its loopback endpoints as a container reaches them. */
export const localValues = (state: StackState, arns: { taskRuns: string; taskRunsDlq: string }, host: string): LocalValues => {
  const viaHost = (url: string) => {
    const parsed = new URL(url);
    parsed.hostname = host;
    return parsed.toString().replace(/\/$/, '');
  };
  return {
      [environmentVariables.table]: state.tableName,
      ...Object.fromEntries(queueDefinitions.map((definition) => [definition.urlVariable, viaHost(state.queueUrls[definition.logicalName] ?? '')])),
      [schedulerEnvironment.targetQueueArn]: arns.taskRuns,
      [schedulerEnvironment.deadLetterQueueArn]: arns.taskRunsDlq,
      [schedulerEnvironment.executionRoleArn]: localSchedulerRoleArn,
      [environmentVariables.secretFieldsKey]: localSecretFieldsKeyArn,
      [environmentVariables.webhookSecretArn]: localWebhookSecretArn,
      AWS_ENDPOINT_URL_DYNAMODB: viaHost(state.dynamodbEndpoint),
      AWS_ENDPOINT_URL_SQS: viaHost(state.sqsEndpoint),
      [schedulerEnvironment.endpoint]: viaHost(state.schedulerEndpoint),
      AWS_ENDPOINT_URL_KMS: viaHost(state.kmsEndpoint),
      AWS_ENDPOINT_URL_SECRETS_MANAGER: viaHost(state.secretsManagerEndpoint),
  };
};

/**
 * The --env-vars file: per function, a value for every variable the template gives as anything but text (what
 * sam local would leave empty) and for every variable the SAM template adds. Throws naming a variable it has no
 * local value for, rather than leave it empty.
 */
export const samEnvironment = (template: CfnTemplate, values: LocalValues): Record<string, Record<string, string>> =>
  Object.fromEntries(
    functionsOf(template).map(([logicalId, variables]) => {
      const secrets = localSecretVariables(variables);
      const needed = [...Object.keys(variables).filter((name) => typeof variables[name] !== 'string'), ...endpointVariables];
      const environment: Record<string, string> = { ...secrets };
      for (const name of needed) {
        if (name in environment) continue;
        const value = values[name];
        if (value === undefined) throw new LocalToolError(`no local value for ${name} of ${logicalId}: sam-env.ts must learn it`);
        environment[name] = value;
      }
      return [logicalId, Object.fromEntries(Object.entries(environment).sort(([a], [b]) => a.localeCompare(b)))];
    }),
  );

const main = async () => {
  const { values, fail } = parseCommandLine(usage, () =>
    parseArgs({
      options: { host: { type: 'string' }, pid: { type: 'string' }, assembly: { type: 'string' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }),
  );
  if (values.pid !== undefined && !/^\d{1,10}$/.test(values.pid)) fail('--pid must be a process id');
  const host = values.host ?? 'host.docker.internal';
  if (!/^[A-Za-z0-9.-]+$/.test(host)) fail('--host must be a host name or an IPv4 address');
  const assemblyDir = values.assembly ?? defaultAssemblyDir;
  let state: StackState;
  try {
    state = findRunningStack(values.pid === undefined ? undefined : Number(values.pid));
  } catch (error) {
    if (error instanceof LocalToolError) return fail(error.message, 1);
    throw error;
  }
  let template: CfnTemplate;
  try {
    template = JSON.parse(readFileSync(join(assemblyDir, `${assemblyStacks.api}.template.json`), 'utf8')) as CfnTemplate;
  } catch (error) {
    return fail(`cannot read the API template in ${assemblyDir} (run \`npm start\` or \`npm run synth\` first): ${(error as Error).message}`, 1);
  }
  const sqs = new SQSClient({ endpoint: state.sqsEndpoint, region: localRegion, credentials: localCredentials, maxAttempts: 1 });
  const arnOf = async (name: string) => {
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
    const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    return Attributes?.QueueArn ?? fail(`the local SQS server gave no ARN for ${name}`, 1);
  };
  let arns: { taskRuns: string; taskRunsDlq: string };
  try {
    arns = { taskRuns: await arnOf(taskRunsQueue.localQueueName), taskRunsDlq: await arnOf(taskRunsQueue.deadLetterQueue.localQueueName) };
  } catch (error) {
    return fail(`cannot read the queues at ${state.sqsEndpoint}: ${(error as Error).name}`, 1);
  } finally {
    sqs.destroy();
  }
  const environment = samEnvironment(template, localValues(state, arns, host));
  const templateFile = join(assemblyDir, `${assemblyStacks.api}.sam.template.json`);
  const envFile = resolve(values.out ?? join(repoRoot, '.local', 'sam-env.json'));
  writeFileSync(templateFile, `${JSON.stringify(samTemplate(template), null, 1)}\n`);
  mkdirSync(dirname(envFile), { recursive: true });
  writeFileSync(envFile, `${JSON.stringify(environment, null, 2)}\n`);
  process.stdout.write(
    `wrote ${relative(repoRoot, templateFile)} and ${relative(repoRoot, envFile)} (${Object.keys(environment).length} functions, stack pid ${state.pid})\n` +
      `sam local start-api -t ${relative(repoRoot, templateFile)} --env-vars ${relative(repoRoot, envFile)} --port ${samPort}` +
      `${host === 'host.docker.internal' ? ' --add-host host.docker.internal:host-gateway' : ''}\n`,
  );
};

if (process.argv[1] && /sam-env\.ts$/.test(process.argv[1])) await main();
