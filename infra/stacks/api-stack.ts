// Infra, stateless: functions (operations, authorizer, queue consumer), the REST API, its firewall and alarms.
// Everything here can be replaced by a deploy; the data it uses (table, queues, secret) comes from the data stack.
import {
  CfnOutput,
  CfnParameter,
  CrossStackReferences,
  Duration,
  ReferenceStrength,
  RemovalPolicy,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { environmentVariables } from '#shared/environment';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { consumedQueueDefinitions, queueDefinitions, type ConsumedQueueDefinition, type QueueName } from '#shared/events/queues';
import { operations, type Operation, type OtherResources } from '#shared/operations/index';
import { readStackSettings, settingsEnvironment, type StackSetting } from '#shared/operations/settings';
import type { AuthContext } from '#infra/app-config';
import { ApiFirewall } from '#infra/constructs/api-firewall';
import { grantOperationResources, grantResourcesOf } from '#infra/constructs/grant-operation-resources';
import { grantTableAccess } from '#infra/constructs/grant-table-access';
import { OperationFunction } from '#infra/constructs/operation-function';
import { OperationsApi } from '#infra/constructs/operations-api';
import { ServiceAlarms } from '#infra/constructs/service-alarms';
import { ServiceDashboard } from '#infra/constructs/service-dashboard';

export interface ApiStackProps extends StackProps {
  readonly table: ITable;
  /** Every queue of shared/events/queues.ts with its DLQ, by name. */
  readonly queues: { readonly [name in QueueName]: { readonly queue: IQueue; readonly deadLetterQueue: IQueue } };
  readonly webhookSecret: ISecret;
  readonly secretFieldsKey: IKey;
  /** The stage's schedule group (name) and the role its schedules send with. */
  readonly scheduleGroupName: string;
  readonly schedulerRole: IRole;
  readonly auth: AuthContext;
  readonly logRemovalPolicy: RemovalPolicy;
  readonly alarmEmail?: string;
  /** Stack settings from context (shared/operations/settings.ts); each function gets those its entry names. */
  readonly settings?: Readonly<Record<StackSetting, string>>;
  /** Defaults to the whole manifest; tests may pass a subset. */
  readonly operations?: readonly Operation[];
  readonly throttlingRateLimit?: number;
  readonly throttlingBurstLimit?: number;
  readonly requestsPerIpPer5Minutes?: number;
}

/** `tenantLocationGet` -> `TenantLocationGet`: construct ids stay readable in the tree and in logical ids. */
const constructIdOf = (operationId: string): string => operationId.charAt(0).toUpperCase() + operationId.slice(1);

export class ApiStack extends Stack {
  readonly operationFunctions: ReadonlyMap<string, OperationFunction>;
  readonly authorizerFunction: OperationFunction;
  /** Each consumed queue's consumer (shared/events/queues.ts `consumer`), by function name: no route, an SQS event source. */
  readonly queueConsumers: ReadonlyMap<string, OperationFunction>;
  readonly operationsApi: OperationsApi;
  /** The service's CloudWatch dashboard: alarms, business metrics, API, functions and queues. */
  readonly dashboard: ServiceDashboard;
  /** The stack setting `tracing`, as every function gets it. */
  private readonly tracing: { readonly tracing: boolean; readonly environment: Readonly<Record<string, string>> };

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    // Strong references (Export/ImportValue) to the data stack: CloudFormation then refuses to delete or replace
    // the table while this stack still uses it. Set before any child exists, as context must be.
    CrossStackReferences.of(this).consume(ReferenceStrength.STRONG);
    const manifest = props.operations ?? operations;
    const settings = props.settings ?? readStackSettings(() => undefined);
    // Every function's: X-Ray active tracing and the variable the functions' tracer reads (shared/observability).
    const tracing = { tracing: settings.tracing === 'true', environment: settingsEnvironment(['tracing'], settings) };
    this.tracing = tracing;

    const authorizerFunction = new OperationFunction(this, 'Authorizer', {
      handlerModule: 'functions/authorizer.ts',
      description: 'REQUEST authorizer: verifies bearer tokens against the OIDC issuer JWKS',
      tracing: tracing.tracing,
      environment: {
        ...tracing.environment,
        [environmentVariables.authJwksUrl]: this.authSetting(props.auth.jwksUrl, 'AuthJwksUrl', 'JWKS URL of the token issuer (https://...)', {
          allowedPattern: '^https://\\S+$',
          constraintDescription: 'must be an https:// URL',
        }),
        [environmentVariables.authIssuer]: this.authSetting(props.auth.issuer, 'AuthIssuer', 'Expected "iss" claim of bearer tokens', {
          minLength: 1,
        }),
        [environmentVariables.authAudience]: this.authSetting(props.auth.audience, 'AuthAudience', 'Expected "aud" claim; empty skips the check', {
          default: '',
        }),
      },
      logRemovalPolicy: props.logRemovalPolicy,
    });
    this.authorizerFunction = authorizerFunction;

    const grantResources: OtherResources = grantResourcesOf(this, props);
    const operationFunctions = new Map<string, OperationFunction>();
    for (const operation of manifest) {
      const operationFunction = new OperationFunction(this, constructIdOf(operation.operationId), {
        handlerModule: operation.handler,
        description: `${operation.method} ${operation.path}: ${operation.summary}`.slice(0, 256),
        tracing: tracing.tracing,
        environment: { ...tracing.environment, ...settingsEnvironment(operation.stackSettings, settings) },
        logRemovalPolicy: props.logRemovalPolicy,
      });
      grantTableAccess(operationFunction, props.table, operation);
      grantOperationResources(operationFunction, operation.grants ?? [], grantResources);
      operationFunctions.set(operation.operationId, operationFunction);
    }
    this.operationFunctions = operationFunctions;

    this.queueConsumers = new Map(
      consumedQueueDefinitions.map((definition) => [
        definition.consumer.name,
        this.createQueueConsumer(definition, props.queues[definition.name as QueueName].queue, grantResources, props),
      ]),
    );

    const functions = new Map<string, IFunction>(
      [...operationFunctions].map(([operationId, operationFunction]) => [operationId, operationFunction.function]),
    );

    this.operationsApi = new OperationsApi(this, 'Api', {
      operations: manifest,
      functions,
      authorizerFunction: authorizerFunction.function,
      logRemovalPolicy: props.logRemovalPolicy,
      ...(props.throttlingRateLimit !== undefined ? { throttlingRateLimit: props.throttlingRateLimit } : {}),
      ...(props.throttlingBurstLimit !== undefined ? { throttlingBurstLimit: props.throttlingBurstLimit } : {}),
    });

    new ApiFirewall(this, 'Firewall', {
      stage: this.operationsApi.api.deploymentStage,
      ...(props.requestsPerIpPer5Minutes !== undefined ? { requestsPerIpPer5Minutes: props.requestsPerIpPer5Minutes } : {}),
    });

    const queues = queueDefinitions.map((definition) => ({
      name: definition.name,
      queue: props.queues[definition.name].queue,
      deadLetterQueue: props.queues[definition.name].deadLetterQueue,
      ...('consumer' in definition
        ? { consumerName: definition.consumer.name, consumer: this.consumer(definition.consumer.name).function }
        : {}),
    }));
    const alarms = new ServiceAlarms(this, 'Alarms', {
      api: this.operationsApi.api,
      functions,
      authorizerLogGroup: authorizerFunction.logGroup,
      queues,
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    });
    this.dashboard = new ServiceDashboard(this, 'Dashboard', {
      api: this.operationsApi.api,
      functions: new Map([
        ...functions,
        ...[...this.queueConsumers].map(([name, consumer]) => [name, consumer.function] as const),
      ]),
      queues,
      alarms: alarms.alarms,
    });

    new CfnOutput(this, 'ApiBaseUrl', {
      description: 'Base URL of the API ({base_url}), ending in /api/',
      value: this.operationsApi.api.url,
    });
    // The address to give the document-analysis provider: the webhook operations of the manifest (one today), so
    // the output can never name a path the API does not route.
    for (const webhook of operations.filter((operation) => operation.auth === 'webhook-signature')) {
      new CfnOutput(this, 'WebhookUrl', {
        description: `URL the document-analysis provider posts signed events to (${webhook.operationId})`,
        value: this.operationsApi.api.urlForPath(webhook.path),
      });
    }
    new CfnOutput(this, 'AlarmTopicArn', {
      description: 'Subscribe on-call tooling here',
      value: alarms.topic.topicArn,
    });
  }

  /** The consumer function of a queue of queues.ts, by its name (`documentEventsConsumer`). */
  consumer(name: string): OperationFunction {
    const found = this.queueConsumers.get(name);
    if (!found) throw new Error(`No queue consumer ${name}`);
    return found;
  }

  /**
   * The consumer of a queue of shared/events/queues.ts: built like every other function, granted its manifest-style
   * table actions and resource grants, and invoked by an SQS event source mapping configured from the queue's
   * definition.
   */
  private createQueueConsumer(
    definition: ConsumedQueueDefinition,
    queue: IQueue,
    grantResources: OtherResources,
    props: ApiStackProps,
  ): OperationFunction {
    const { consumer, eventSource } = definition;
    const consumerFunction = new OperationFunction(this, constructIdOf(consumer.name), {
      handlerModule: consumer.handler,
      description: consumer.description,
      timeout: Duration.seconds(consumer.timeoutSeconds),
      invokedBy: 'queue',
      tracing: this.tracing.tracing,
      environment: this.tracing.environment,
      logRemovalPolicy: props.logRemovalPolicy,
    });
    grantTableAccess(consumerFunction, props.table, consumer);
    grantOperationResources(consumerFunction, consumer.grants ?? [], grantResources);
    // Also grants the consume actions (ReceiveMessage, DeleteMessage, ChangeMessageVisibility, GetQueueAttributes,
    // GetQueueUrl) on this queue's ARN. Partial batch responses: one bad record is retried alone, not its batch.
    consumerFunction.function.addEventSource(
      new SqsEventSource(queue, {
        batchSize: eventSource.batchSize,
        maxBatchingWindow: Duration.seconds(eventSource.maxBatchingWindowSeconds),
        maxConcurrency: eventSource.maximumConcurrency,
        reportBatchItemFailures: eventSource.reportBatchItemFailures,
      }),
    );
    return consumerFunction;
  }

  /**
   * An auth setting given as context is baked into the template; otherwise it becomes a stack parameter, so
   * `cdk synth` works offline and `cdk deploy --parameters AuthIssuer=...` configures a real account. Issuer and
   * JWKS URL have no default: a deploy without them fails at once ("Parameters: [...] must have values") instead of
   * creating an API whose authorizer answers every bearer request with 500. The audience may be empty (no check).
   */
  private authSetting(
    fromContext: string | undefined,
    parameterName: string,
    description: string,
    options: { allowedPattern?: string; constraintDescription?: string; default?: string; minLength?: number } = {},
  ): string {
    if (fromContext !== undefined) return fromContext;
    return new CfnParameter(this, parameterName, { type: 'String', description, ...options }).valueAsString;
  }
}
