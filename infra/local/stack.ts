// Local stack: the CDK app's cloud assembly (cdk.out/), run on one machine, without Docker or an AWS account.
// DynamoDB Local and the SQS server stand in for the stateful resources, provisioned as the data stack's template
// declares them; the gateway (routes from the API stack's template) and the event source mappings (the template's)
// invoke the built assets, each function isolated in a process of its own with its template environment, and every
// AWS call of a function passes the IAM edge, which refuses what its role's policies, as synthesized, do not allow.
// KMS, Secrets Manager and EventBridge Scheduler are emulated (kms.ts, secrets-manager.ts, scheduler.ts).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { CreateScheduleCommand, SchedulerClient, UpdateScheduleCommand } from '@aws-sdk/client-scheduler';
import { createSqsServer } from 'local-aws-sqs';
import { startJournaledSqsServer } from './sqs-journal';
import { localDevSecret } from '#shared/auth/tokens';
import { tableDefinition } from '#shared/data/table';
import { localWebhookSecret } from '#shared/schemas/webhook-signature';
import { queueDefinitions, type QueueName } from '#shared/events/queues';
import { environmentVariables } from '#shared/environment';
import { commonFunctionEnvironment, operations as manifestOperations, schedulerEnvironment, type OtherResources } from '#shared/operations/index';
import { queueConsumers as defaultConsumers, type QueueConsumer } from './consumers';
import { startDynamoDbLocal } from './dynamodb-local';
import { startEventSourceMapping, type RunningEventSourceMapping } from './event-source-mapping';
import { startIsolatedFunctions } from './function-host';
import { isolatedFromTemplate, localAuthorizerSettings, localFunctionFleet, type DeclaredFunction } from './functions';
import { assemblyStacks, ensureCloudAssembly } from './cloud-assembly';
import { readAssemblyStack } from './template';
import { queueSettingsFromTemplate, tableFromTemplate } from './template-provisioning';
import {
  constructIdOfLocalName,
  functionsByConstructId,
  resolveAssembly,
  templateApi,
  templateEventSources,
  templateKmsKeys,
  templateScheduler,
  templateSecrets,
  type LocalQueue,
} from './template-resources';
import { authorizerFunctionName, authorizerModulePath, startGateway, type GatewayOptions } from './gateway';
import { acceptsLocalWebhookSecret } from './webhook-signing';
import { startIamEdge, type EdgeIdentity } from './iam-edge';
import { FaultEngine, type FaultRules } from './faults';
import { IndexLag } from './index-lag';
import { startFaultControl } from './fault-control';
import { repoRoot } from './lambda-runtime';
import { closeServer, ensurePortsFree, findFreePort, isProcessAlive, LocalSetupError, localAccountId, localCredentials, localRegion } from './local-aws';
import { ensureQueues, ensureTable, type ProvisionedQueue, type QueueSettings } from './provision';
import { startSchedulerEmulation } from './scheduler';
import { kmsKeyArn, startKmsEmulation, type RunningKms } from './kms';
import { secretArn, startSecretsManagerEmulation, webhookSecretString, type RunningSecretsManager } from './secrets-manager';
import { readStackSettings, settingsEnvironment } from '#shared/operations/settings';

export const defaultDataDir = join(repoRoot, '.local');

export interface LocalStackOptions {
  /** Gateway port; 0 picks a free one (and free ports for DynamoDB Local and SQS too). */
  readonly port: number;
  readonly dynamodbPort?: number;
  readonly sqsPort?: number;
  /** Keep DynamoDB in memory instead of `<dataDir>/dynamodb`. */
  readonly inMemory: boolean;
  readonly dataDir?: string;
  readonly consumers?: readonly QueueConsumer[];
  /** Gateway settings; its functions always run isolated (`invoke` and `resolveModule` of handlers are the stack's). */
  readonly gateway?: Omit<GatewayOptions, 'log' | 'invoke' | 'operations' | 'authorizerModule'>;
  readonly log?: (line: string) => void;
  /** The scheduler emulation's clock (epoch ms) and how often it fires due schedules (0: never); tests set them. */
  readonly schedulerClock?: () => number;
  readonly schedulerTickMs?: number;
  /**
   * The cloud assembly to run (a directory `cdk synth` wrote). Default: cdk.out/, synthesized first unless it is up
   * to date with the sources (cloud-assembly.ts).
   */
  readonly assemblyDir?: string;
  /**
   * The fault mode (faults.ts): these rules (none: only the control endpoint, for rules PUT at run time), `seed`
   * overriding theirs. Absent: no fault engine at all, every call passes untouched.
   */
  readonly faults?: { readonly rules?: FaultRules; readonly seed?: number };
  /** Execution environments (processes) per function at most (function-host.ts; default 10). */
  readonly maxEnvironments?: number;
}

export interface LocalStackEndpoints {
  readonly baseUrl: string;
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly tableName: string;
  /** Every queue of shared/events/queues.ts and its DLQ, by logical name: `DocumentEvents`, `DocumentEventsDlq`, ... */
  readonly queueUrls: Readonly<Record<string, string>>;
  /** The IAM edge the functions call DynamoDB, SQS and the scheduler through; tests and tools use the endpoints above. */
  readonly iamEdgeEndpoint: string;
  /** The EventBridge Scheduler emulation (direct, admin): GetSchedule/ListSchedules show the schedules it holds. */
  readonly schedulerEndpoint: string;
  /** The KMS emulation (direct, admin): the templates' keys. */
  readonly kmsEndpoint: string;
  /** The Secrets Manager emulation (direct, admin): the templates' secret; PutSecretValue rotates it. */
  readonly secretsManagerEndpoint: string;
  /** The fault mode's control endpoint (fault-control.ts), with `faults` only. */
  readonly faultsEndpoint?: string;
}

export interface LocalStack extends LocalStackEndpoints {
  stop(): Promise<void>;
}

/** The webhook secret's values locally (the local Secrets Manager's secret): the values `npm start` was given, else the local stack's. */
const localWebhookSecretValues = (): string => process.env[environmentVariables.webhookSecrets] ?? localWebhookSecret;

/**
 * This process's own environment: the admin key and the servers' direct endpoints, plus every setting a function
 * could be given. Only code that runs handlers in this process (the benchmark) reads it; the functions the stack
 * serves never see it (function-host.ts gives each exactly its own environment).
 */
const inProcessEnvironment = (endpoints: Omit<LocalStackEndpoints, 'baseUrl' | 'iamEdgeEndpoint' | 'schedulerEndpoint' | 'kmsEndpoint' | 'secretsManagerEndpoint'>): Record<string, string> => ({
  [environmentVariables.table]: endpoints.tableName,
  ...Object.fromEntries(queueDefinitions.map((definition) => [definition.urlVariable, endpoints.queueUrls[definition.logicalName] ?? ''])),
  AWS_REGION: localRegion,
  AWS_DEFAULT_REGION: localRegion,
  // Fake credentials in-process, so nothing here can reach a real AWS account by accident.
  AWS_ACCESS_KEY_ID: localCredentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: localCredentials.secretAccessKey,
  AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodbEndpoint,
  AWS_ENDPOINT_URL_SQS: endpoints.sqsEndpoint,
  AUTH_HS256_SECRET: process.env.AUTH_HS256_SECRET ?? localDevSecret,
  [environmentVariables.webhookSecrets]: localWebhookSecretValues(),
  ...commonFunctionEnvironment(process.env[environmentVariables.logLevel] ?? 'INFO'),
});

/** Every function the stack serves, as declared: the manifest's operations, the authorizer, the queue consumers. */
const declaredFunctions = (consumers: readonly QueueConsumer[]): DeclaredFunction[] => {
  // Stack settings locally come from the environment of `npm start` (checked as the CDK app checks its context).
  const localStackSettings = readStackSettings((definition) => process.env[definition.variable]);
  return [
    ...manifestOperations.map((operation) => ({
      functionName: operation.operationId,
      handler: operation.handler,
      tableAccess: operation.tableAccess,
      ...(operation.tableIndexes ? { tableIndexes: operation.tableIndexes } : {}),
      ...(operation.grants ? { grants: operation.grants } : {}),
      settings: settingsEnvironment(operation.stackSettings, localStackSettings),
    })),
    { functionName: authorizerFunctionName, handler: authorizerModulePath, tableAccess: [], settings: localAuthorizerSettings() },
    ...consumers.map((consumer) => ({
      functionName: consumer.functionName,
      handler: consumer.handler,
      tableAccess: consumer.tableAccess,
      ...(consumer.tableIndexes ? { tableIndexes: consumer.tableIndexes } : {}),
      ...(consumer.grants ? { grants: consumer.grants } : {}),
    })),
  ];
};

/** The same queue URL on the IAM edge's host: the SQS server knows a queue by the URL's path only. */
const viaEdge = (queueUrl: string, edgeEndpoint: string): string => {
  const url = new URL(queueUrl);
  return `${edgeEndpoint}${url.pathname}`;
};

/** The ARN of the webhook signing secret (the template's AWS::SecretsManager::Secret): the local Secrets Manager holds it. */
export const localWebhookSecretArn = secretArn('local-webhook-signing-secret', 'Lc4l01');

/** The local id of the secret-fields KMS key (the template's AWS::KMS::Key): the local KMS holds it (kms.ts). */
export const localSecretFieldsKeyArn = kmsKeyArn('00000000-0000-4000-8000-000000000001');

/** The local stage's schedule group and the execution role its schedules name. */
export const localScheduleGroupName = 'business-platform-dev-tasks';
export const localSchedulerRoleArn = `arn:aws:iam::${localAccountId}:role/business-platform-local-task-scheduler`;


/**
 * Takes `<dataDir>/stack.lock` for this process: one stack at a time may run on a persistent data directory
 * (DynamoDB Local's SQLite files and the KMS keys are not for two servers: a second one locked the first out). A
 * lock whose process is gone (a SIGKILL) is taken over. Returns its release.
 */
export const lockDataDir = (dataDir: string): (() => void) => {
  const lockFile = join(dataDir, 'stack.lock');
  mkdirSync(dataDir, { recursive: true });
  for (;;) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lockFile, 'utf8'));
      // An empty file is a stack taking the lock this instant (created, not yet written).
      if (!(holder > 0) || (holder !== process.pid && isProcessAlive(holder))) {
        throw new LocalSetupError(
          `${relative(repoRoot, dataDir) || '.'}/ is in use by another local stack${holder > 0 ? ` (process ${holder})` : ''}: stop it first, or start this one with --in-memory`,
        );
      }
      rmSync(lockFile, { force: true });
    }
  }
  return () => {
    try {
      if (readFileSync(lockFile, 'utf8') === String(process.pid)) rmSync(lockFile, { force: true });
    } catch {
      // already gone
    }
  };
};

/** Messages in these queues, visible (in flight included: a quirk of local-aws-sqs) or delayed; 0 when unreadable. */
const queuedMessages = async (sqs: SQSClient, queueUrls: readonly string[]): Promise<number> => {
  const counts = await Promise.all(
    queueUrls.map((QueueUrl) =>
      sqs
        .send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'] }))
        .then(({ Attributes = {} }) => Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0))
        .catch(() => 0),
    ),
  );
  return counts.reduce((sum, count) => sum + count, 0);
};

export const startLocalStack = async (options: LocalStackOptions): Promise<LocalStack> => {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const freePorts = options.port === 0;
  // 0 (given, or implied by --port 0) means a free port; the JVM takes only a concrete one, so one is picked here.
  const requestedDynamodbPort = options.dynamodbPort ?? (freePorts ? 0 : 8000);
  const dynamodbPort = requestedDynamodbPort === 0 ? await findFreePort() : requestedDynamodbPort;
  const sqsPort = options.sqsPort ?? (freePorts ? 0 : 9324);
  const dataDir = options.dataDir ?? defaultDataDir;
  const releaseDataDir = options.inMemory ? () => undefined : lockDataDir(dataDir);
  let dataStack: ReturnType<typeof readAssemblyStack>;
  let assemblyDir: string;
  try {
    await ensurePortsFree([
      { port: options.port, what: 'the API gateway', option: '--port (or PORT)' },
      { port: dynamodbPort, what: 'DynamoDB Local', option: '--dynamodb-port' },
      { port: sqsPort, what: 'the SQS server', option: '--sqs-port' },
    ]);
    // The cloud assembly (`cdk synth`'s cdk.out/), synthesized first when stale: everything below runs what it declares.
    assemblyDir = options.assemblyDir ?? (await ensureCloudAssembly({ log }));
    dataStack = readAssemblyStack(assemblyDir, assemblyStacks.data);
  } catch (error) {
    releaseDataDir();
    throw error;
  }
  /** A queue's settings as the data stack declares them (a test's own variant of a queue keeps its settings). */
  const queueSettingsOf = (queue: QueueSettings): QueueSettings => {
    const shared = queueDefinitions.find((definition) => definition === queue);
    return shared ? queueSettingsFromTemplate(dataStack, shared) : queue;
  };
  // The data directory's lock goes last, once everything that writes there has stopped.
  const stops: (() => Promise<void>)[] = [async () => releaseDataDir()];
  const stop = async () => {
    for (const step of stops.splice(0).reverse()) {
      await step().catch((error: unknown) => log(`[local-stack] stopping: ${String(error)}`));
    }
  };

  try {
    const sqsOptions = {
      port: sqsPort,
      hostname: '127.0.0.1',
      region: localRegion,
      accountId: localAccountId,
      // Queues are re-created on every start; AWS's 60 s wait after a delete only gets in the way locally.
      emulateQueueCreationLifecycle: false,
    };
    // In memory, the SQS server as it is; on a persistent stack, behind its journal (sqs-journal.ts), so that queued
    // work outlives a stop as the table does.
    const journaledSqs = options.inMemory ? undefined : await startJournaledSqsServer({ ...sqsOptions, dir: join(dataDir, 'sqs'), log });
    const sqsServer = journaledSqs?.server ?? (await createSqsServer(sqsOptions));
    stops.push(() => closeServer(sqsServer));
    // createSqsServer resolves once listening.
    const sqsEndpoint = `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`;

    const dynamodb = await startDynamoDbLocal({
      port: dynamodbPort,
      dataDir: options.inMemory ? undefined : join(dataDir, 'dynamodb'),
      onOutput: (line) => log(`[dynamodb-local] ${line}`),
    });
    stops.push(() => dynamodb.stop());

    const clientConfig = { region: localRegion, credentials: localCredentials };
    const dynamodbClient = new DynamoDBClient({ ...clientConfig, endpoint: dynamodb.endpoint });
    const sqs = new SQSClient({ ...clientConfig, endpoint: sqsEndpoint });
    stops.push(async () => {
      dynamodbClient.destroy();
      sqs.destroy();
    });
    // The table's keys, indexes and TTL, the queues' attributes and redrive policies: the data stack's template's.
    const table = tableFromTemplate(dataStack);
    await ensureTable(dynamodbClient, table, tableDefinition.localTableName);
    const provisioned = new Map<QueueName, ProvisionedQueue>();
    for (const definition of queueDefinitions) provisioned.set(definition.name, await ensureQueues(sqs, queueSettingsOf(definition)));
    const endpoints: Omit<LocalStackEndpoints, 'baseUrl' | 'iamEdgeEndpoint' | 'schedulerEndpoint' | 'kmsEndpoint' | 'secretsManagerEndpoint'> = {
      dynamodbEndpoint: dynamodb.endpoint,
      sqsEndpoint,
      tableName: tableDefinition.localTableName,
      queueUrls: Object.fromEntries(
        queueDefinitions.flatMap((definition) => {
          const queue = provisioned.get(definition.name)!;
          return [
            [definition.logicalName, queue.queueUrl],
            [definition.deadLetterQueue.logicalName, queue.deadLetterQueueUrl],
          ];
        }),
      ),
    };
    Object.assign(process.env, inProcessEnvironment(endpoints));

    const consumers = options.consumers ?? defaultConsumers;
    const consumedQueues = await Promise.all(consumers.map((consumer) => ensureQueues(sqs, queueSettingsOf(consumer.queue))));
    // The messages the last stop (or kill) of this persistent stack left queued, back in their queues before anything
    // consumes them; the stop says how many it leaves for the next start, after the consumers stopped (steps run in
    // reverse), before the client goes.
    if (journaledSqs) {
      const { restored, deadLettered, unknownQueue } = await journaledSqs.restore();
      if (restored + unknownQueue > 0) {
        log(
          `[local-stack] ${restored} queued message(s) restored from ${join(dataDir, 'sqs')}` +
            (deadLettered > 0 ? ` (${deadLettered} to a dead-letter queue: received as often as their queue allows)` : '') +
            (unknownQueue > 0 ? `; ${unknownQueue} not restored: their queue is no longer in the template` : ''),
        );
      }
      stops.push(async () => {
        const urls = new Set([...provisioned.values(), ...consumedQueues].flatMap((queue) => [queue.queueUrl, queue.deadLetterQueueUrl]));
        const kept = await queuedMessages(sqs, [...urls]);
        if (kept > 0) log(`[local-stack] ${kept} queued message(s) kept in ${join(dataDir, 'sqs')} for the next start`);
      });
    }

    // The IAM edge first (the scheduler emulation joins its upstreams once it runs): queue URLs the functions are
    // given name its host.
    const identities = new Map<string, EdgeIdentity>();
    const upstreams = new Map([
      ['dynamodb', dynamodb.endpoint],
      ['sqs', sqsEndpoint],
    ]);
    let kms: RunningKms | undefined;
    let secretsManager: RunningSecretsManager | undefined;
    // The fault mode: one engine for every injection point, its control endpoint on loopback.
    const faults = options.faults ? new FaultEngine(options.faults.rules, log, options.faults.seed) : undefined;
    const faultControl = faults ? await startFaultControl(faults) : undefined;
    if (faultControl) stops.push(() => faultControl.close());
    let killFunction: ((functionName: string, accessKeyId: string) => Promise<void>) | undefined;
    const edge = await startIamEdge({
      upstreams,
      identities,
      adminAccessKeyId: localCredentials.accessKeyId,
      kmsKeys: { keyArnOf: (keyId) => kms?.keyArnOf(keyId), policyOf: (keyArn) => kms?.policyOf(keyArn) },
      secrets: { secretArnOf: (secretId) => secretsManager?.secretArnOf(secretId) },
      tableKeys: new Map([[endpoints.tableName, { partitionKey: table.partitionKey, sortKey: table.sortKey }]]),
      ...(faults
        ? {
          faults: {
            engine: faults,
            killCaller: (functionName: string, accessKeyId: string) => killFunction?.(functionName, accessKeyId) ?? Promise.resolve(),
            indexLag: new IndexLag({ endpoint: dynamodb.endpoint, tables: [endpoints.tableName], accessKeyId: localCredentials.accessKeyId, region: localRegion, log }),
          },
        }
        : {}),
      log,
    });
    stops.push(() => edge.close());

    // The cloud assembly, resolved against the local resources.
    const skipped = (source: string, why: string) => log(`[template] ${source} not enforced locally: ${why}`);
    const assembly = resolveAssembly(assemblyDir, {
      pseudo: { accountId: localAccountId, region: localRegion },
      table: { name: endpoints.tableName, arn: `arn:aws:dynamodb:${localRegion}:${localAccountId}:table/${endpoints.tableName}` },
      queues: new Map<string, LocalQueue>(
        queueDefinitions.flatMap((definition): [string, LocalQueue][] => {
          const queue = provisioned.get(definition.name)!;
          return [
            [definition.logicalName, { url: viaEdge(queue.queueUrl, edge.endpoint), arn: queue.queueArn, name: definition.localQueueName }],
            [definition.deadLetterQueue.logicalName, { url: viaEdge(queue.deadLetterQueueUrl, edge.endpoint), arn: queue.deadLetterQueueArn, name: definition.deadLetterQueue.localQueueName }],
          ];
        }),
      ),
      webhookSecretArn: localWebhookSecretArn,
      secretFieldsKeyArn: localSecretFieldsKeyArn,
      schedulerRoleArn: localSchedulerRoleArn,
    });

    // KMS: the templates' keys with their key policies (the edge enforces them with the role policies); the key
    // material is kept beside the data unless in memory.
    kms = await startKmsEmulation({ keys: templateKmsKeys(assembly, skipped), ...(options.inMemory ? {} : { dataDir }), log });
    stops.push(() => kms!.close());
    upstreams.set('kms', kms.endpoint);
    // In-process handlers (the benchmark) call it directly, with the admin key.
    Object.assign(process.env, { [environmentVariables.secretFieldsKey]: localSecretFieldsKeyArn, AWS_ENDPOINT_URL_KMS: kms.endpoint });

    // Secrets Manager: the templates' secret (the webhook's), holding the local webhook secret values, in memory (a
    // PutSecretValue lasts until the stack stops). Functions read it through the edge, under their role's policies.
    secretsManager = await startSecretsManagerEmulation({ secrets: templateSecrets(assembly, webhookSecretString(localWebhookSecretValues())), log });
    stops.push(() => secretsManager!.close());
    upstreams.set('secretsmanager', secretsManager.endpoint);

    // EventBridge Scheduler: the data stack's schedule group; schedules fire into the local queues, as the execution
    // role the template declares (with its policy's statements).
    const taskRuns = provisioned.get('taskRuns')!;
    const queueUrlByArn = new Map([...provisioned.values()].flatMap((queue) => [
      [queue.queueArn, queue.queueUrl],
      [queue.deadLetterQueueArn, queue.deadLetterQueueUrl],
    ]));
    const templateSchedules = templateScheduler(assembly, skipped);
    if (!templateSchedules.groups.includes(localScheduleGroupName)) {
      throw new Error(`The data stack's schedule group is ${templateSchedules.groups.join(', ') || 'missing'}, not ${localScheduleGroupName} (infra/local/stack.ts)`);
    }
    const scheduler = await startSchedulerEmulation({
      groups: templateSchedules.groups,
      roles: templateSchedules.roles,
      deliver: async (queueArn, body) => {
        const queueUrl = queueUrlByArn.get(queueArn);
        if (!queueUrl) throw new Error(`no local queue ${queueArn}`);
        await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
      },
      ...(options.schedulerClock ? { clock: options.schedulerClock } : {}),
      ...(options.schedulerTickMs !== undefined ? { tickMs: options.schedulerTickMs } : {}),
      ...(faults ? { faults } : {}),
      // Kept beside the table, so a task's schedule outlives a stop as the task does.
      ...(options.inMemory ? {} : { dataDir: join(dataDir, 'scheduler') }),
      log,
    });
    stops.push(() => scheduler.close());
    upstreams.set('scheduler', scheduler.endpoint);
    // The schedules the data stack itself creates (the reconciler's), as its template declares them.
    const schedulerAdmin = new SchedulerClient({ ...clientConfig, endpoint: scheduler.endpoint });
    for (const schedule of templateSchedules.schedules) {
      const input = schedule as unknown as ConstructorParameters<typeof CreateScheduleCommand>[0];
      // A persistent stack kept it from its last start: the template's definition replaces it (as a deploy would).
      await schedulerAdmin.send(new CreateScheduleCommand(input)).catch((error: unknown) => {
        if ((error as { name?: string }).name !== 'ConflictException') throw error;
        return schedulerAdmin.send(new UpdateScheduleCommand(input));
      });
    }
    schedulerAdmin.destroy();
    // In-process handlers (the benchmark) manage schedules directly, with the admin key, like the rest of this
    // process's environment.
    Object.assign(process.env, {
      [schedulerEnvironment.groupName]: localScheduleGroupName,
      [schedulerEnvironment.targetQueueArn]: taskRuns.queueArn,
      [schedulerEnvironment.deadLetterQueueArn]: taskRuns.deadLetterQueueArn,
      [schedulerEnvironment.executionRoleArn]: localSchedulerRoleArn,
      [schedulerEnvironment.endpoint]: scheduler.endpoint,
    });

    const grantResources: OtherResources = {
      // The SQS client sends to the host of the queue URL (not its endpoint setting): the function's URL names the edge.
      queues: Object.fromEntries(
        queueDefinitions.map((definition) => {
          const queue = provisioned.get(definition.name)!;
          return [definition.name, { url: viaEdge(queue.queueUrl, edge.endpoint), arn: queue.queueArn, deadLetterQueueArn: queue.deadLetterQueueArn }];
        }),
      ) as OtherResources['queues'],
      webhookSecret: { arn: localWebhookSecretArn },
      secretFieldsKey: { arn: localSecretFieldsKeyArn },
      scheduler: {
        groupName: localScheduleGroupName,
        schedulesArn: `arn:aws:scheduler:${localRegion}:${localAccountId}:schedule/${localScheduleGroupName}/*`,
        executionRoleArn: localSchedulerRoleArn,
        endpoint: edge.endpoint,
      },
    };
    // Each function the stack serves runs its built asset with the template's handler, environment, timeout and
    // memory, and the edge enforces its role's policies as synthesized. Only a function the template does not
    // declare (a test's fixture consumer) runs from its TypeScript module with its declared grants.
    const declared = declaredFunctions(consumers);
    const templateFunctions = functionsByConstructId(assembly, skipped);
    const fromTemplate = new Map(
      declared.flatMap((fn) => {
        const templateFunction = templateFunctions.get(constructIdOfLocalName(fn.functionName));
        return templateFunction ? [[fn.functionName, templateFunction] as const] : [];
      }),
    );
    const undeclared = [...templateFunctions.keys()].filter((id) => !declared.some((fn) => constructIdOfLocalName(fn.functionName) === id));
    if (undeclared.length > 0) log(`[template] functions of the template that nothing invokes locally: ${undeclared.join(', ')}`);
    const fleet = localFunctionFleet(
      declared.filter((fn) => !fromTemplate.has(fn.functionName)),
      {
        table: { name: endpoints.tableName, arn: `arn:aws:dynamodb:${localRegion}:${localAccountId}:table/${endpoints.tableName}` },
        ...grantResources,
      },
      edge.endpoint,
    );
    const substitutes = {
      edgeEndpoint: edge.endpoint,
      authHs256Secret: localAuthorizerSettings().AUTH_HS256_SECRET!,
    };
    const templateFleet = declared.flatMap((fn) => {
      const templateFunction = fromTemplate.get(fn.functionName);
      return templateFunction ? [isolatedFromTemplate(fn.functionName, fn.handler, templateFunction, assembly.api.stackName, substitutes)] : [];
    });
    for (const [accessKeyId, identity] of fleet.identities) identities.set(accessKeyId, identity);
    for (const { accessKeyId, identity } of templateFleet) identities.set(accessKeyId, identity);
    const functions = startIsolatedFunctions([...fleet.functions, ...templateFleet.map(({ fn }) => fn)], log, {
      ...(options.maxEnvironments !== undefined ? { maxEnvironments: options.maxEnvironments } : {}),
      ...(faults ? { faults } : {}),
    });
    stops.push(() => functions.close());
    killFunction = functions.kill;

    // Routes, methods, the authorizer's cache TTL, the gateway responses, binary media types and the integration
    // timeout: the API stack's REST API resources, not the manifest.
    const api = templateApi(assembly.api);
    const byLogicalId = new Map([...templateFunctions.values()].map((fn) => [fn.logicalId, fn]));
    const routes = api.routes.map((route) => {
      const fn = byLogicalId.get(route.functionLogicalId);
      if (fn?.constructId !== constructIdOfLocalName(route.operationId)) {
        throw new Error(`${route.method} ${route.path} (${route.operationId}) integrates ${route.functionLogicalId}, not that operation's function`);
      }
      return { operationId: route.operationId, method: route.method, path: route.path, handler: fn.modulePath, auth: route.auth };
    });
    const gateway = await startGateway({
      operations: routes,
      authorizerCacheTtlMs: api.authorizerCacheTtlMs,
      gatewayResponses: api.gatewayResponses,
      binaryMediaTypes: api.binaryMediaTypes,
      integrationTimeoutMs: api.integrationTimeoutMs,
      webhookSigning: acceptsLocalWebhookSecret(localWebhookSecretValues()),
      ...options.gateway,
      invoke: functions.invoke,
      ...(faults ? { faults } : {}),
      port: options.port,
      log,
    });
    stops.push(() => gateway.close());

    // Event source mappings: the template's (queue, batch size, batching window, maximum concurrency,
    // ReportBatchItemFailures) for a consumer the template declares; a test's fixture consumer keeps its own.
    const eventSources = templateEventSources(assembly);
    consumers.forEach((consumer, index) => {
      const templateFunction = fromTemplate.get(consumer.functionName);
      const fromTemplateSource = templateFunction ? eventSources.get(templateFunction.logicalId) : undefined;
      const declaredQueue = consumedQueues[index]!;
      const queueUrl = fromTemplateSource ? queueUrlByArn.get(fromTemplateSource.queueArn) : declaredQueue.queueUrl;
      if (!queueUrl) throw new Error(`${fromTemplateSource?.logicalId}: no local queue ${fromTemplateSource?.queueArn}`);
      const { logicalId: _logicalId, queueArn, ...settings } = fromTemplateSource ?? { logicalId: '', queueArn: declaredQueue.queueArn, ...consumer.queue.eventSource };
      const mapping: RunningEventSourceMapping = startEventSourceMapping({
        sqs,
        queueUrl,
        queueArn,
        invoke: (event, timeoutMs) => functions.invoke({ functionName: consumer.functionName, handler: consumer.handler }, event, timeoutMs),
        functionName: consumer.functionName,
        functionTimeoutMs: (templateFunction?.timeoutSeconds ?? consumer.timeoutSeconds) * 1000,
        ...settings,
        ...(faults ? { faults } : {}),
        log,
      });
      stops.push(() => mapping.stop());
    });

    return {
      ...endpoints,
      baseUrl: gateway.baseUrl,
      iamEdgeEndpoint: edge.endpoint,
      schedulerEndpoint: scheduler.endpoint,
      kmsEndpoint: kms.endpoint,
      secretsManagerEndpoint: secretsManager.endpoint,
      ...(faultControl ? { faultsEndpoint: faultControl.endpoint } : {}),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
};
