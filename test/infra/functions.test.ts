// Infra tests: one function per manifest operation plus the authorizer and the queue consumer, each built with the
// shared settings and granted exactly the table actions its manifest entry (or queues.ts) lists.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { operations } from '#shared/operations/index';
import { repositoryRoot } from '#infra/constructs/operation-function';
import type { OperationFunction } from '#infra/constructs/operation-function';
import { consumedQueueDefinitions } from '#shared/events/queues';
import {
  actionsOf,
  logicalIdOf,
  resourcesOf,
  statementsOfRole,
  synthesize,
  type CfnTemplate,
  type PolicyStatement,
  type Synthesized,
} from './synthesize';

let synthesized: Synthesized;
let template: CfnTemplate;

beforeAll(() => {
  synthesized = synthesize();
  template = synthesized.apiJson;
});
afterAll(() => synthesized.cleanUp());

const functionProperties = (operationFunction: OperationFunction): Record<string, any> =>
  template.Resources[logicalIdOf(operationFunction.function)]!.Properties as Record<string, any>;

/** Every statement of every policy attached to the function's role. */
const statementsOf = (operationFunction: OperationFunction): PolicyStatement[] =>
  statementsOfRole(template, logicalIdOf(operationFunction.role));

const consumers = consumedQueueDefinitions.map((definition) => definition.consumer);
const consumerNamed = (name: string) => consumers.find((consumer) => consumer.name === name);

/** Every function by name, known before the synth so each gets its own test. */
const functionNames = [...operations.map((operation) => operation.operationId), 'authorizer', ...consumers.map((consumer) => consumer.name)];

const functionNamed = (name: string): OperationFunction => {
  const found =
    name === 'authorizer'
      ? synthesized.apiStack.authorizerFunction
      : consumerNamed(name)
        ? synthesized.apiStack.consumer(name)
        : synthesized.apiStack.operationFunctions.get(name);
  if (!found) throw new Error(`No function ${name}`);
  return found;
};

describe('functions', () => {
  it('has one function per manifest operation, plus the authorizer and one per consumed queue', () => {
    synthesized.api.resourceCountIs('AWS::Lambda::Function', operations.length + 1 + consumers.length);
    expect([...synthesized.apiStack.operationFunctions.keys()].sort()).toEqual(
      operations.map((operation) => operation.operationId).sort(),
    );
  });

  it('points every manifest handler at a module that exists', () => {
    for (const operation of operations) expect(existsSync(join(repositoryRoot, operation.handler))).toBe(true);
    expect(existsSync(join(repositoryRoot, 'functions/authorizer.ts'))).toBe(true);
    for (const consumer of consumers) expect(existsSync(join(repositoryRoot, consumer.handler))).toBe(true);
  });

  it.each(functionNames)('%s runs Node.js 22+ on arm64 with the shared settings', (name) => {
    const operationFunction = functionNamed(name);
    const properties = functionProperties(operationFunction);
    const nodeMajor = Number(/^nodejs(\d+)\.x$/.exec(properties.Runtime)?.[1]);
    expect(nodeMajor).toBeGreaterThanOrEqual(22);
    expect(properties.Architectures).toEqual(['arm64']);
    expect(properties.Handler).toBe('index.handler');
    expect(properties.MemorySize).toBe(512);
    // Behind API Gateway: within its 29 s integration limit. The consumer: the timeout queues.ts declares.
    const consumer = consumerNamed(name);
    if (consumer) expect(properties.Timeout).toBe(consumer.timeoutSeconds);
    else expect(properties.Timeout).toBeLessThanOrEqual(29);
    expect(properties.TracingConfig).toEqual({ Mode: 'Active' });
    expect(properties.LoggingConfig).toEqual({
      LogFormat: 'JSON',
      ApplicationLogLevel: 'INFO',
      LogGroup: { Ref: logicalIdOf(operationFunction.logGroup) },
    });
    expect(properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(properties.Environment.Variables).toMatchObject({
      POWERTOOLS_SERVICE_NAME: 'business-platform-api',
      LOG_LEVEL: 'INFO',
    });
    // Source maps are not read at run time (issue 23): they are beside the template, for `npm run trace`.
    expect(properties.Environment.Variables.NODE_OPTIONS).toBeUndefined();
  });

  it.each(functionNames)('%s logs to its own log group, kept one month', (name) => {
    const operationFunction = functionNamed(name);
    expect(template.Resources[logicalIdOf(operationFunction.logGroup)]!.Properties).toEqual({ RetentionInDays: 30 });
  });

  it('configures no provisioned concurrency', () => {
    synthesized.api.resourceCountIs('AWS::Lambda::Version', 0);
    synthesized.api.resourceCountIs('AWS::Lambda::Alias', 0);
  });
});

describe('least privilege', () => {
  it.each(functionNames)('%s has its own role without managed or inline policies', (name) => {
    const operationFunction = functionNamed(name);
    const role = template.Resources[logicalIdOf(operationFunction.role)]!.Properties!;
    expect(role.ManagedPolicyArns).toBeUndefined();
    expect(role.Policies).toBeUndefined();
  });

  it.each(functionNames)('%s has no wildcard action, and "*" resources only for X-Ray', (name) => {
    const operationFunction = functionNamed(name);
    for (const statement of statementsOf(operationFunction)) {
      expect(statement.Effect).toBe('Allow');
      for (const action of actionsOf(statement)) expect(action).not.toContain('*');
      if (resourcesOf(statement).includes('*')) {
        expect(actionsOf(statement).sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
      }
    }
  });

  it.each(operations.map((operation) => [operation.operationId, operation] as const))(
    '%s gets exactly its manifest table actions, and TABLE_NAME only with them',
    (operationId, operation) => {
      const operationFunction = synthesized.apiStack.operationFunctions.get(operationId)!;
      const statements = statementsOf(operationFunction).filter((statement) =>
        actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
      );
      const granted = new Set(statements.flatMap(actionsOf));
      expect([...granted].sort()).toEqual([...new Set(operation.tableAccess)].sort());

      for (const statement of statements) {
        for (const resource of resourcesOf(statement)) {
          // The table's ARN (imported from the data stack) or one named index under it; never a wildcard.
          expect(JSON.stringify(resource)).toContain('Fn::ImportValue');
          expect(JSON.stringify(resource)).not.toContain('*');
        }
      }

      const variables = functionProperties(operationFunction).Environment.Variables as Record<string, unknown>;
      if (operation.tableAccess.length > 0) expect(variables.TABLE_NAME).toEqual({ 'Fn::ImportValue': expect.any(String) });
      else expect(variables).not.toHaveProperty('TABLE_NAME');
    },
  );

  it.each(operations.map((operation) => [operation.operationId, operation] as const))(
    '%s may read exactly the indexes its manifest names, by name, with Query only',
    (operationId, operation) => {
      const operationFunction = synthesized.apiStack.operationFunctions.get(operationId)!;
      const onIndex = statementsOf(operationFunction).filter((statement) => JSON.stringify(statement.Resource).includes('/index/'));
      const indexes = [...new Set(operation.tableIndexes ?? [])];
      if (indexes.length === 0) {
        expect(onIndex).toEqual([]);
        return;
      }
      expect(onIndex).toHaveLength(1);
      expect(actionsOf(onIndex[0]!)).toEqual(['dynamodb:Query']);
      const named = resourcesOf(onIndex[0]!).map((resource) => /\/index\/([^"/]+)"/.exec(JSON.stringify(resource))?.[1]);
      expect(named.sort()).toEqual(indexes.sort());
    },
  );

  it('lets GetAll read the index of active locations by name (gsi1) and Search none', () => {
    const indexResources = (operationId: string) =>
      statementsOf(synthesized.apiStack.operationFunctions.get(operationId)!)
        .filter((statement) => JSON.stringify(statement.Resource).includes('/index/'))
        .map((statement) => JSON.stringify(statement.Resource));
    expect(indexResources('tenantLocationGetAll').join()).toContain('/index/gsi1');
    expect(indexResources('tenantLocationSearch')).toEqual([]);
  });

  it('gives the authorizer no table access and its issuer settings', () => {
    const authorizer = synthesized.apiStack.authorizerFunction;
    expect(statementsOf(authorizer).flatMap(actionsOf).filter((action) => action.startsWith('dynamodb:'))).toEqual([]);
    const variables = functionProperties(authorizer).Environment.Variables as Record<string, unknown>;
    expect(variables).not.toHaveProperty('TABLE_NAME');
    expect(variables).not.toHaveProperty('AUTH_HS256_SECRET');
    expect(variables).toMatchObject({
      AUTH_JWKS_URL: { Ref: 'AuthJwksUrl' },
      AUTH_ISSUER: { Ref: 'AuthIssuer' },
      AUTH_AUDIENCE: { Ref: 'AuthAudience' },
    });
  });
});
