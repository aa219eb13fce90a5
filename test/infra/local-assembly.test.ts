// Infra tests: the assembly `cdk synth` writes (the local stack's cdk.out/, synthesized offline by the project's
// CLI when stale) stays runnable by SAM CLI and LocalStack: every function carries the asset metadata they read
// (`aws:asset:path`, `aws:asset:property`), and its asset holds the module its Handler names, built by esbuild.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { assemblyStacks, ensureCloudAssembly } from '#infra/local/cloud-assembly';
import { readAssemblyStack, resourcesOfType, type AssemblyStack } from '#infra/local/template';
import { handlerModule, templateFunctions } from '#infra/local/template-functions';
import { functionRuntime } from '#infra/constructs/operation-function';
import { isolatedFromTemplate } from '#infra/local/functions';
import { nodeMajorOf } from '#infra/local/lambda-runtime';
import { resolveAssembly, templateApi, templateEventSources, unescapeMediaType } from '#infra/local/template-resources';
import { readRequestMediaTypes } from '#shared/http/media';
import { queueSettingsFromTemplate, tableFromTemplate } from '#infra/local/template-provisioning';
import { renderGatewayResponse, sharedGatewayResponseSet } from '#infra/local/gateway-responses';
import { tableDefinition } from '#shared/data/table';
import { gatewayResponses } from '#shared/http/gateway-responses';
import { consumedQueueDefinitions, queueDefinitions } from '#shared/events/queues';
import { operations, resourceOf } from '#shared/operations/index';

let api: AssemblyStack;
let assemblyDir: string;

beforeAll(async () => {
  assemblyDir = await ensureCloudAssembly();
  api = readAssemblyStack(assemblyDir, assemblyStacks.api);
}, 15 * 60_000);

describe('the synthesized API stack', () => {
  it('declares one function per operation, per queue consumer, and the authorizer', () => {
    expect(resourcesOfType(api.template, 'AWS::Lambda::Function')).toHaveLength(operations.length + consumedQueueDefinitions.length + 1);
  });

  it('gives every function the asset metadata SAM CLI and LocalStack read, pointing at a built module', () => {
    for (const [logicalId, fn] of resourcesOfType(api.template, 'AWS::Lambda::Function')) {
      expect([logicalId, fn.Metadata?.['aws:asset:property']]).toEqual([logicalId, 'Code']);
      const assetPath = fn.Metadata?.['aws:asset:path'];
      expect(typeof assetPath).toBe('string');
      const assetDir = join(api.assemblyDir, assetPath as string);
      expect(existsSync(assetDir)).toBe(true);
      expect(handlerModule(assetDir, String(fn.Properties?.Handler)).modulePath).toMatch(/index\.mjs$/);
    }
  });
});

describe('the event source mappings the local stack reads from the template', () => {
  it('are one per consumed queue, with the queue and the settings of shared/events/queues.ts', () => {
    const pseudo = { accountId: '123456789012', region: 'us-east-1' };
    const queues = new Map(
      consumedQueueDefinitions.flatMap((queue) => [
        [queue.logicalName, { url: `http://edge/${queue.localQueueName}`, arn: `arn:aws:sqs:us-east-1:123456789012:${queue.localQueueName}`, name: queue.localQueueName }],
        [queue.deadLetterQueue.logicalName, { url: 'http://edge/dlq', arn: 'arn:aws:sqs:us-east-1:123456789012:dlq', name: 'dlq' }],
      ]),
    );
    const assembly = resolveAssembly(assemblyDir, {
      pseudo,
      table: { name: 'business-platform', arn: 'arn:aws:dynamodb:us-east-1:123456789012:table/business-platform' },
      queues,
      webhookSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:local',
      secretFieldsKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/local',
      schedulerRoleArn: 'arn:aws:iam::123456789012:role/local',
    });
    const sources = [...templateEventSources(assembly).values()];
    expect(sources.map(({ logicalId: _, ...source }) => source).sort((a, b) => a.queueArn.localeCompare(b.queueArn))).toEqual(
      consumedQueueDefinitions
        .map((queue) => ({ queueArn: queues.get(queue.logicalName)!.arn, ...queue.eventSource }))
        .sort((a, b) => a.queueArn.localeCompare(b.queueArn)),
    );
  });
});

describe('what the local stack provisions from the data stack template', () => {
  it('is the table of shared/data/table.ts: keys, indexes, TTL', () => {
    const data = readAssemblyStack(assemblyDir, assemblyStacks.data);
    const table = tableFromTemplate(data);
    expect({ ...table, globalSecondaryIndexes: table.globalSecondaryIndexes.map(({ serves: _, ...index }) => index) }).toEqual({
      partitionKey: tableDefinition.partitionKey,
      sortKey: tableDefinition.sortKey,
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      globalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map(({ serves: _, ...index }) => index),
    });
  });

  it.each(queueDefinitions.map((queue) => [queue.logicalName, queue] as const))('is the %s queue of shared/events/queues.ts, with its DLQ', (_, queue) => {
    const data = readAssemblyStack(assemblyDir, assemblyStacks.data);
    expect(queueSettingsFromTemplate(data, queue)).toEqual({
      localQueueName: queue.localQueueName,
      visibilityTimeoutSeconds: queue.visibilityTimeoutSeconds,
      retentionPeriodSeconds: queue.retentionPeriodSeconds,
      maximumMessageBytes: queue.maximumMessageBytes,
      deadLetterQueue: {
        localQueueName: queue.deadLetterQueue.localQueueName,
        maxReceiveCount: queue.deadLetterQueue.maxReceiveCount,
        retentionPeriodSeconds: queue.deadLetterQueue.retentionPeriodSeconds,
      },
    });
  });
});

describe('the routes the local gateway reads from the template', () => {
  it('are the operations of the manifest, each integrating its own function, bearer ones behind the authorizer', () => {
    const { routes, authorizerCacheTtlMs } = templateApi(api);
    const key = (route: { method: string; path: string }) => `${route.method} ${resourceOf(route.path)}`;
    expect(routes.map((route) => ({ key: key(route), operationId: route.operationId, auth: route.auth })).sort((a, b) => a.key.localeCompare(b.key))).toEqual(
      operations.map((operation) => ({ key: key(operation), operationId: operation.operationId, auth: operation.auth })).sort((a, b) => a.key.localeCompare(b.key)),
    );
    expect(authorizerCacheTtlMs).toBe(300_000);
  });
});

describe('the gateway responses the local gateway reads from the template', () => {
  it('are the shared definitions as the CDK stack installs them: types, statuses, headers, templates', () => {
    const fromTemplate = templateApi(api).gatewayResponses;
    expect(new Map([...fromTemplate].sort(([a], [b]) => a.localeCompare(b)))).toEqual(
      new Map([...sharedGatewayResponseSet()].sort(([a], [b]) => a.localeCompare(b))),
    );
  });

  it.each(gatewayResponses.map((definition) => [definition.type, definition] as const))(
    '%s renders with the request id substituted in its body and header',
    (type, definition) => {
      const rendered = renderGatewayResponse(templateApi(api).gatewayResponses, type, { requestId: 'req-1' });
      expect(rendered.status).toBe(definition.kind.status);
      expect(JSON.parse(rendered.body)).toMatchObject({ status: definition.kind.status, detail: definition.detail, instance: 'req-1' });
      expect(rendered.headers).toMatchObject({ 'Content-Type': 'application/problem+json', 'X-Request-Id': 'req-1', ...definition.headers });
    },
  );

  it('carries the request limits the template declares: every request media type binary, the integration timeout', () => {
    const { binaryMediaTypes, integrationTimeoutMs } = templateApi(api);
    expect({ binaryMediaTypes, integrationTimeoutMs }).toEqual({ binaryMediaTypes: [...readRequestMediaTypes], integrationTimeoutMs: 29_000 });
  });

  it('reads a BinaryMediaTypes entry in the escaped form of SAM templates (`~1` for `/`) as the media type', () => {
    expect(['application~1json', 'application/json', 'application~1vnd.a~0b+xml'].map(unescapeMediaType)).toEqual([
      'application/json',
      'application/json',
      'application/vnd.a~b+xml',
    ]);
  });
});

describe('the Node.js the local stack runs each function on', () => {
  const substitutes = { edgeEndpoint: 'http://edge', authHs256Secret: 'local-secret' };
  const pseudo = { accountId: '123456789012', region: 'us-east-1' };
  const resolved = () =>
    resolveAssembly(assemblyDir, {
      pseudo,
      table: { name: 'business-platform', arn: 'arn:aws:dynamodb:us-east-1:123456789012:table/business-platform' },
      queues: new Map(
        queueDefinitions.flatMap((queue) => [
          [queue.logicalName, { url: 'http://edge/queue', arn: `arn:aws:sqs:us-east-1:123456789012:${queue.localQueueName}`, name: queue.localQueueName }],
          [queue.deadLetterQueue.logicalName, { url: 'http://edge/dlq', arn: 'arn:aws:sqs:us-east-1:123456789012:dlq', name: 'dlq' }],
        ]),
      ),
      webhookSecretArn: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:local',
      secretFieldsKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/local',
      schedulerRoleArn: 'arn:aws:iam::123456789012:role/local',
    });

  it('is the major its Runtime names, the executable of the pinned Node package', () => {
    const assembly = resolved();
    const functions = templateFunctions(assembly.api, assembly.apiResolver);
    expect(new Set(functions.map((fn) => fn.runtime))).toEqual(new Set([functionRuntime.name]));
    const executables = new Set(
      functions.map((fn) => {
        const { runtime } = isolatedFromTemplate(fn.constructId, 'unused', fn, api.stackName, substitutes).fn;
        expect(runtime?.name).toBe(fn.runtime);
        return runtime!.execPath;
      }),
    );
    expect(executables.size).toBe(1);
    const [executable] = executables;
    expect(executable).toMatch(/node_modules\/node-linux-(x64|arm64)\/bin\/node$/);
    expect(execFileSync(executable!, ['--version'], { encoding: 'utf8' }).trim()).toMatch(new RegExp(`^v${nodeMajorOf(functionRuntime.name)}\\.`));
  });

  it.each([
    ['nodejs18.x', /Runtime nodejs18\.x names Node\.js 18; the local stack can run functions on Node\.js 24\.\d+\.\d+ only/],
    ['nodejs22.x', /Runtime nodejs22\.x names Node\.js 22; the local stack can run functions on Node\.js 24\./],
    ['nodejs26.x', /Runtime nodejs26\.x names Node\.js 26; the local stack can run functions on Node\.js 24\./],
    ['python3.12', /Runtime python3\.12 is not a Node\.js runtime/],
  ])('refuses a function whose Runtime is %s, naming the function', (runtime, message) => {
    const assembly = resolved();
    const [firstId] = resourcesOfType(assembly.api.template, 'AWS::Lambda::Function')[0]!;
    const resources = Object.fromEntries(
      Object.entries(assembly.api.template.Resources ?? {}).map(([logicalId, resource]) => [
        logicalId,
        logicalId === firstId ? { ...resource, Properties: { ...resource.Properties, Runtime: runtime } } : resource,
      ]),
    );
    const stack = { ...assembly.api, template: { ...assembly.api.template, Resources: resources } };
    const functions = templateFunctions(stack, assembly.apiResolver);
    const changed = functions.find((fn) => fn.logicalId === firstId)!;
    expect(changed.runtime).toBe(runtime);
    expect(() => isolatedFromTemplate('changedFunction', 'unused', changed, stack.stackName, substitutes)).toThrow(message);
    expect(() => isolatedFromTemplate('changedFunction', 'unused', changed, stack.stackName, substitutes)).toThrow(`changedFunction (${firstId})`);
  });
});
