// Local stack: what each resource of the two synthesized stacks stands for locally (its `Ref` and `Fn::GetAtt`
// values), so the templates resolve against the local table, queues, schedule group, secret, key and stand-ins; and
// the few local substitutes a function's environment needs where a service is not emulated (the token issuer) or
// where AWS would use its own endpoints (the IAM edge instead).
import { gatewayResponsesFromTemplate, type GatewayResponseSet } from './gateway-responses';
import type { KeyPolicyStatement, LocalKmsKeyDefinition } from './kms';
import type { LocalSecretDefinition } from './secrets-manager';
import {
  createResolver,
  exportsOf,
  readAssemblyStack,
  resourcesOfType,
  type AssemblyStack,
  type CfnTemplate,
  type LocalPhysical,
  type PseudoParameters,
  type Resolver,
} from './template';
import { templateFunctions, roleStatements, type TemplateFunction, type TemplateStatement } from './template-functions';
import { assemblyStacks } from './cloud-assembly';
import type { HttpMethod } from '#shared/operations/operation';
import { environmentVariables } from '#shared/environment';
import { taskSchedulerRoleId } from '#infra/stacks/construct-ids';

/** A local queue: the URL functions are given (through the IAM edge), its ARN and its name. */
export interface LocalQueue {
  readonly url: string;
  readonly arn: string;
  readonly name: string;
}

export interface LocalResources {
  readonly pseudo: PseudoParameters;
  readonly table: { readonly name: string; readonly arn: string };
  /** By the queue's logical name (`DocumentEvents`, `DocumentEventsDlq`): the suffix of its QueueName on AWS. */
  readonly queues: ReadonlyMap<string, LocalQueue>;
  /** The ARN of the templates' one secret (the webhook's signing secret), as the local Secrets Manager holds it. */
  readonly webhookSecretArn: string;
  readonly secretFieldsKeyArn: string;
  /** The ARN of the role task schedules send with (the data stack's role assumed by scheduler.amazonaws.com). */
  readonly schedulerRoleArn: string;
}

/**
 * The construct id the API stack gives a function the local stack knows by name: the operationId, consumer name or
 * `authorizer` with its first letter in upper case (infra/stacks/api-stack.ts).
 */
export const constructIdOfLocalName = (functionName: string): string => functionName.charAt(0).toUpperCase() + functionName.slice(1);

const arn = (pseudo: PseudoParameters, service: string, resource: string, region = pseudo.region): string =>
  `arn:${pseudo.partition ?? 'aws'}:${service}:${region}:${pseudo.accountId}:${resource}`;

/** The queue logical names of a data template: QueueName's suffix, and `<queue>Dlq` for the queue it dead-letters to. */
const queueNames = (stack: AssemblyStack): Map<string, string> => {
  const names = new Map<string, string>();
  for (const [logicalId, queue] of resourcesOfType(stack.template, 'AWS::SQS::Queue')) {
    const queueName = queue.Properties?.QueueName;
    if (typeof queueName !== 'string' || !queueName.startsWith(`${stack.stackName}-`)) continue;
    const name = queueName.slice(stack.stackName.length + 1);
    names.set(logicalId, name);
    const target = (queue.Properties?.RedrivePolicy as { deadLetterTargetArn?: { 'Fn::GetAtt'?: unknown[] } } | undefined)?.deadLetterTargetArn;
    const dlq = target?.['Fn::GetAtt']?.[0];
    if (typeof dlq === 'string') names.set(dlq, `${name}Dlq`);
  }
  return names;
};

const assumedByScheduler = (template: CfnTemplate, logicalId: string): boolean =>
  JSON.stringify(template.Resources[logicalId]?.Properties?.AssumeRolePolicyDocument ?? {}).includes('scheduler.amazonaws.com');

/** The local physical of each resource of a stack that the local stack runs or stands in for. */
export const localPhysical = (stack: AssemblyStack, local: LocalResources): ((logicalId: string) => LocalPhysical | undefined) => {
  const queues = queueNames(stack);
  const { pseudo } = local;
  return (logicalId): LocalPhysical | undefined => {
    const resource = stack.template.Resources[logicalId];
    const properties = resource?.Properties ?? {};
    switch (resource?.Type) {
      case 'AWS::DynamoDB::Table':
        return { ref: local.table.name, attributes: { Arn: local.table.arn } };
      case 'AWS::SQS::Queue': {
        const name = queues.get(logicalId);
        const queue = name === undefined ? undefined : local.queues.get(name);
        return queue && { ref: queue.url, attributes: { Arn: queue.arn, QueueName: queue.name, QueueUrl: queue.url } };
      }
      case 'AWS::SecretsManager::Secret':
        return { ref: local.webhookSecretArn, attributes: { Id: local.webhookSecretArn } };
      case 'AWS::KMS::Key': {
        const keyId = local.secretFieldsKeyArn.slice(local.secretFieldsKeyArn.lastIndexOf('/') + 1);
        return { ref: keyId, attributes: { Arn: local.secretFieldsKeyArn, KeyId: keyId } };
      }
      case 'AWS::Scheduler::ScheduleGroup': {
        const name = String(properties.Name ?? logicalId);
        return { ref: name, attributes: { Arn: arn(pseudo, 'scheduler', `schedule-group/${name}`) } };
      }
      case 'AWS::IAM::Role': {
        // The task schedules' role is the one the local stack names (its functions and in-process handlers pass it);
        // any other role, another scheduler role included (the reconciler's), keeps a name of its own, so two roles
        // never share one ARN (and one's statements never stand for the other's).
        const isTaskSchedulerRole = assumedByScheduler(stack.template, logicalId) && logicalId.startsWith(taskSchedulerRoleId);
        const roleArn = isTaskSchedulerRole ? local.schedulerRoleArn : `arn:${pseudo.partition ?? 'aws'}:iam::${pseudo.accountId}:role/${stack.stackName}-${logicalId}`;
        const name = roleArn.slice(roleArn.lastIndexOf('/') + 1);
        return { ref: name, attributes: { Arn: roleArn, RoleId: name } };
      }
      case 'AWS::Lambda::Function':
        return { ref: logicalId, attributes: { Arn: arn(pseudo, 'lambda', `function:${logicalId}`) } };
      case 'AWS::Logs::LogGroup':
        return { ref: `/aws/lambda/${logicalId}`, attributes: { Arn: arn(pseudo, 'logs', `log-group:/aws/lambda/${logicalId}:*`) } };
      case 'AWS::SNS::Topic':
        return { ref: arn(pseudo, 'sns', logicalId), attributes: { TopicName: logicalId } };
      default:
        return undefined;
    }
  };
};

/** The two stacks of the assembly with their resolvers: the API stack imports from the data stack. */
export interface ResolvedAssembly {
  readonly data: AssemblyStack;
  readonly api: AssemblyStack;
  readonly dataResolver: Resolver;
  readonly apiResolver: Resolver;
}

export const resolveAssembly = (assemblyDir: string, local: LocalResources, parameters: Readonly<Record<string, string>> = {}): ResolvedAssembly => {
  const data = readAssemblyStack(assemblyDir, assemblyStacks.data);
  const api = readAssemblyStack(assemblyDir, assemblyStacks.api);
  const dataResolver = createResolver({ stack: data, pseudo: local.pseudo, parameters, physical: localPhysical(data, local) });
  const apiResolver = createResolver({
    stack: api,
    pseudo: local.pseudo,
    parameters,
    physical: localPhysical(api, local),
    importValue: exportsOf(data, dataResolver),
  });
  return { data, api, dataResolver, apiResolver };
};

/**
 * The schedule group the data stack declares (AWS::Scheduler::ScheduleGroup), the roles schedules may send with, and
 * the schedules the stack itself creates (AWS::Scheduler::Schedule, such as the reconciler's), resolved: their
 * CloudFormation properties are CreateSchedule's input, member for member.
 */
export const templateScheduler = (
  assembly: ResolvedAssembly,
  skip: (source: string, why: string) => void = () => undefined,
): { groups: string[]; roles: Map<string, TemplateStatement[]>; schedules: Record<string, unknown>[] } => {
  const groups = resourcesOfType(assembly.data.template, 'AWS::Scheduler::ScheduleGroup').map(([logicalId, group]) =>
    assembly.dataResolver.resolveString(group.Properties?.Name ?? logicalId, `Resources.${logicalId}.Properties.Name`),
  );
  const roles = new Map<string, TemplateStatement[]>();
  for (const [logicalId] of resourcesOfType(assembly.data.template, 'AWS::IAM::Role')) {
    if (!assumedByScheduler(assembly.data.template, logicalId)) continue;
    const roleArn = assembly.dataResolver.resolveString({ 'Fn::GetAtt': [logicalId, 'Arn'] }, `Resources.${logicalId}`);
    roles.set(roleArn, roleStatements(assembly.data, assembly.dataResolver, logicalId, skip).statements);
  }
  const schedules = resourcesOfType(assembly.data.template, 'AWS::Scheduler::Schedule').map(
    ([logicalId, schedule]) => assembly.dataResolver.resolve(schedule.Properties ?? {}, `Resources.${logicalId}.Properties`) as Record<string, unknown>,
  );
  return { groups, roles, schedules };
};

/**
 * The KMS keys of both stacks (AWS::KMS::Key), each with its KeyPolicy resolved (principals, actions, resources,
 * conditions) and its aliases (AWS::KMS::Alias). A statement the edge cannot judge (NotPrincipal, NotAction,
 * NotResource) is reported through `skip` and left out: an Allow left out allows nothing.
 */
export const templateKmsKeys = (assembly: ResolvedAssembly, skip: (source: string, why: string) => void = () => undefined): LocalKmsKeyDefinition[] =>
  ([[assembly.data, assembly.dataResolver], [assembly.api, assembly.apiResolver]] as const).flatMap(([stack, resolver]) => {
    const aliases = resourcesOfType(stack.template, 'AWS::KMS::Alias').map(([logicalId, alias]) => ({
      target: resolver.resolveString(alias.Properties?.TargetKeyId, `Resources.${logicalId}.Properties.TargetKeyId`),
      name: resolver.resolveString(alias.Properties?.AliasName, `Resources.${logicalId}.Properties.AliasName`),
    }));
    return resourcesOfType(stack.template, 'AWS::KMS::Key').map(([logicalId, key]): LocalKmsKeyDefinition => {
      const keyId = resolver.resolveString({ Ref: logicalId }, `Resources.${logicalId}`);
      const keyArn = resolver.resolveString({ 'Fn::GetAtt': [logicalId, 'Arn'] }, `Resources.${logicalId}`);
      const source = `${stack.stackName} ${logicalId}`;
      const document = key.Properties?.KeyPolicy as { Statement?: unknown } | undefined;
      const raw = Array.isArray(document?.Statement) ? document.Statement : document?.Statement === undefined ? [] : [document.Statement];
      const policy = raw.flatMap((entry, index): KeyPolicyStatement[] => {
        const statementSource = `${source} KeyPolicy.Statement[${index}]${(entry as { Sid?: unknown }).Sid ? ` (${String((entry as { Sid?: unknown }).Sid)})` : ''}`;
        const statement = entry as Record<string, unknown>;
        if (['NotAction', 'NotResource', 'NotPrincipal'].some((name) => name in statement)) {
          skip(statementSource, 'NotPrincipal/NotAction/NotResource are not judged locally');
          return [];
        }
        try {
          const resolved = resolver.resolve(statement, `Resources.${logicalId}.Properties.KeyPolicy.Statement[${index}]`) as Record<string, unknown>;
          const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : value === undefined ? [] : [String(value)]);
          const principal = resolved.Principal;
          const principals =
            principal === '*'
              ? ['*']
              : typeof principal === 'object' && principal !== null
                ? Object.entries(principal as Record<string, unknown>).flatMap(([kind, values]) => list(values).map((value) => (kind === 'AWS' ? value : `${kind}:${value}`)))
                : [];
          const conditions = resolved.Condition as KeyPolicyStatement['conditions'] | undefined;
          return [
            {
              effect: resolved.Effect === 'Deny' ? 'Deny' : 'Allow',
              // An account id as principal is its root.
              principals: principals.map((value) => (/^\d{12}$/.test(value) ? `arn:aws:iam::${value}:root` : value)),
              actions: list(resolved.Action),
              // `*` in a key policy is this key.
              resources: list(resolved.Resource).map((resource) => (resource === '*' ? keyArn : resource)),
              ...(conditions ? { conditions } : {}),
              source: statementSource,
            },
          ];
        } catch (error) {
          skip(statementSource, (error as Error).message);
          return [];
        }
      });
      return {
        keyId,
        source,
        policy,
        aliases: aliases.filter((alias) => alias.target === keyId || alias.target === keyArn).map((alias) => alias.name),
        enabled: key.Properties?.Enabled !== false,
      };
    });
  });

/**
 * The secrets of both stacks (AWS::SecretsManager::Secret), as the local Secrets Manager holds them: the webhook's
 * signing secret, holding `secretString`. The local stack stands one secret in for the templates' one; a template
 * with a second secret fails here (it would need an ARN and a value of its own: localPhysical and this).
 */
export const templateSecrets = (assembly: ResolvedAssembly, secretString: string): LocalSecretDefinition[] => {
  const declared = ([[assembly.data, assembly.dataResolver], [assembly.api, assembly.apiResolver]] as const).flatMap(([stack, resolver]) =>
    resourcesOfType(stack.template, 'AWS::SecretsManager::Secret').map(([logicalId]) => ({
      arn: resolver.resolveString({ Ref: logicalId }, `Resources.${logicalId}`),
      source: `${stack.stackName} ${logicalId}`,
    })),
  );
  if (declared.length > 1) {
    throw new Error(`The templates declare ${declared.length} secrets (${declared.map((secret) => secret.source).join(', ')}); the local stack stands in for one, the webhook's (template-resources.ts)`);
  }
  return declared.map(({ arn: secretArn, source }) => {
    // `...:secret:<name>-<6 characters>`
    const name = secretArn.slice(secretArn.indexOf(':secret:') + ':secret:'.length, -'-XXXXXX'.length);
    return { arn: secretArn, name, source, secretString };
  });
};

export interface LocalSubstitutes {
  /** Every AWS call leads here (the IAM edge). */
  readonly edgeEndpoint: string;
  /** No token issuer locally: the authorizer verifies HS256 tokens signed with this dev secret. */
  readonly authHs256Secret: string;
}

/**
 * A function's environment locally: the template's, resolved, with the local substitutes. The authorizer's issuer
 * settings (stack parameters locally unset) become `AUTH_HS256_SECRET`; and the endpoints of DynamoDB, SQS,
 * EventBridge Scheduler, KMS and Secrets Manager, which AWS would choose itself, lead to the IAM edge
 * (`SECRET_FIELDS_KEY_ARN` and `WEBHOOK_SECRET_ARN` stay: the local KMS and Secrets Manager hold that key and secret).
 */
export const localFunctionEnvironment = (template: Readonly<Record<string, string>>, substitutes: LocalSubstitutes): Record<string, string> => {
  const environment: Record<string, string> = { ...template };
  const { authJwksUrl, authIssuer, authAudience, authHs256Secret } = environmentVariables;
  if ([authJwksUrl, authIssuer, authAudience].some((name) => Object.hasOwn(environment, name)) && !environment[authJwksUrl]) {
    delete environment[authIssuer];
    delete environment[authAudience];
    delete environment[authJwksUrl];
    environment[authHs256Secret] = substitutes.authHs256Secret;
  }
  return {
    ...environment,
    AWS_ENDPOINT_URL: substitutes.edgeEndpoint,
    AWS_ENDPOINT_URL_DYNAMODB: substitutes.edgeEndpoint,
    AWS_ENDPOINT_URL_SQS: substitutes.edgeEndpoint,
    AWS_ENDPOINT_URL_SCHEDULER: substitutes.edgeEndpoint,
    AWS_ENDPOINT_URL_KMS: substitutes.edgeEndpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: substitutes.edgeEndpoint,
  };
};

/** The API stack's functions by construct id. */
export const functionsByConstructId = (
  assembly: ResolvedAssembly,
  skip: (source: string, why: string) => void = () => undefined,
): Map<string, TemplateFunction> =>
  new Map(templateFunctions(assembly.api, assembly.apiResolver, skip).map((fn) => [fn.constructId, fn]));

/** An SQS event source mapping as the template declares it (AWS::Lambda::EventSourceMapping), resolved. */
export interface TemplateEventSource {
  readonly logicalId: string;
  readonly queueArn: string;
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
  readonly maximumConcurrency: number;
  readonly reportBatchItemFailures: boolean;
}

/**
 * The event source mappings of the API stack, by the logical id of the function they invoke. CloudFormation's
 * defaults where the template leaves a property out: batch size 10, no batching window, no concurrency limit
 * (1,000, Lambda's regional default, stands for it), no partial batch responses.
 */
export const templateEventSources = (assembly: ResolvedAssembly): Map<string, TemplateEventSource> => {
  const sources = new Map<string, TemplateEventSource>();
  for (const [logicalId, mapping] of resourcesOfType(assembly.api.template, 'AWS::Lambda::EventSourceMapping')) {
    const properties = mapping.Properties ?? {};
    const functionRef = (properties.FunctionName as { Ref?: unknown } | undefined)?.Ref;
    if (typeof functionRef !== 'string') continue;
    const path = `Resources.${logicalId}.Properties`;
    const scaling = properties.ScalingConfig as { MaximumConcurrency?: unknown } | undefined;
    sources.set(functionRef, {
      logicalId,
      queueArn: assembly.apiResolver.resolveString(properties.EventSourceArn, `${path}.EventSourceArn`),
      batchSize: Number(properties.BatchSize ?? 10),
      maxBatchingWindowSeconds: Number(properties.MaximumBatchingWindowInSeconds ?? 0),
      maximumConcurrency: Number(scaling?.MaximumConcurrency ?? 1000),
      reportBatchItemFailures: Array.isArray(properties.FunctionResponseTypes) && properties.FunctionResponseTypes.includes('ReportBatchItemFailures'),
    });
  }
  return sources;
};

/** A route of the REST API as the template declares it (AWS::ApiGateway::Method on its AWS::ApiGateway::Resource). */
export interface TemplateRoute {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** From the API's root, `/TenantLocation/Get/{id}`. */
  readonly path: string;
  /** The Lambda proxy integration's function (logical id). */
  readonly functionLogicalId: string;
  /** CUSTOM (the REQUEST authorizer) is `bearer`; NONE leaves authentication to the function (the webhook's signature). */
  readonly auth: 'bearer' | 'webhook-signature';
}

export interface TemplateApi {
  readonly routes: readonly TemplateRoute[];
  /** The REQUEST authorizer's result TTL (AuthorizerResultTtlInSeconds; CloudFormation's default 300 s). */
  readonly authorizerCacheTtlMs: number;
  /** The responses the gateway makes by itself (AWS::ApiGateway::GatewayResponse), by ResponseType. */
  readonly gatewayResponses: GatewayResponseSet;
  /**
   * The REST API's BinaryMediaTypes, as media types (`application~1json`, the escaped form of SAM templates and of
   * API Gateway's patch paths, is read as `application/json`): requests of these types reach functions base64-encoded.
   */
  readonly binaryMediaTypes: readonly string[];
  /**
   * The integration timeout (Integration.TimeoutInMillis, API Gateway's default 29 s): the longest any method
   * declares, since the local gateway applies one to every route.
   */
  readonly integrationTimeoutMs: number;
}

const httpMethods: readonly string[] = ['GET', 'POST', 'PUT', 'DELETE'] satisfies HttpMethod[];
const isHttpMethod = (method: string): method is HttpMethod => httpMethods.includes(method);

const functionOfIntegration = (uri: unknown): string | undefined => {
  const found = JSON.stringify(uri ?? null).match(/"Fn::GetAtt":\["([^"]+)","Arn"\]/);
  return found?.[1];
};

/**
 * A BinaryMediaTypes entry as a media type. CloudFormation's RestApi takes `application/json` as it is (the CDK
 * writes that form); SAM templates and API Gateway's patch paths escape `/` as `~1` (and `~` as `~0`, JSON Pointer's
 * escapes, undone in that order), and an entry in that form means the same type.
 */
export const unescapeMediaType = (entry: string): string => entry.replaceAll('~1', '/').replaceAll('~0', '~');

/** The routes, methods and authorizer of the API stack's REST API. */
export const templateApi = (api: AssemblyStack): TemplateApi => {
  const resources = api.template.Resources;
  const pathOf = (resourceId: unknown, seen = 0): string => {
    const ref = (resourceId as { Ref?: unknown } | undefined)?.Ref;
    if (typeof ref !== 'string') return ''; // the API's root resource (Fn::GetAtt RootResourceId)
    const resource = resources[ref];
    if (resource?.Type !== 'AWS::ApiGateway::Resource' || seen > 64) throw new Error(`${api.stackName} ${ref} is not an API resource`);
    return `${pathOf(resource.Properties?.ParentId, seen + 1)}/${String(resource.Properties?.PathPart)}`;
  };
  const authorizers = resourcesOfType(api.template, 'AWS::ApiGateway::Authorizer');
  for (const [logicalId, authorizer] of authorizers) {
    if (authorizer.Properties?.Type !== 'REQUEST' || authorizer.Properties?.IdentitySource !== 'method.request.header.Authorization') {
      throw new Error(`${api.stackName} ${logicalId}: the local gateway runs REQUEST authorizers on the Authorization header only`);
    }
  }
  const routes = resourcesOfType(api.template, 'AWS::ApiGateway::Method')
    .filter(([, resource]) => resource.Properties?.HttpMethod !== 'OPTIONS')
    .map(([logicalId, resource]): TemplateRoute => {
      const properties = resource.Properties ?? {};
      const integration = properties.Integration as { Type?: unknown; Uri?: unknown } | undefined;
      const functionLogicalId = functionOfIntegration(integration?.Uri);
      if (integration?.Type !== 'AWS_PROXY' || !functionLogicalId) throw new Error(`${api.stackName} ${logicalId}: not a Lambda proxy integration`);
      const method = String(properties.HttpMethod);
      if (!isHttpMethod(method)) throw new Error(`${api.stackName} ${logicalId}: HTTP method ${method} is not one the local gateway routes`);
      return {
        operationId: String(properties.OperationName ?? logicalId),
        method,
        path: pathOf(properties.ResourceId) || '/',
        functionLogicalId,
        auth: properties.AuthorizationType === 'CUSTOM' ? 'bearer' : 'webhook-signature',
      };
    });
  const ttl = authorizers[0]?.[1].Properties?.AuthorizerResultTtlInSeconds;
  const restApis = resourcesOfType(api.template, 'AWS::ApiGateway::RestApi');
  if (restApis.length !== 1) throw new Error(`${api.stackName} declares ${restApis.length} REST APIs; the local gateway serves one`);
  const binaryMediaTypes = restApis[0]![1].Properties?.BinaryMediaTypes;
  const timeouts = resourcesOfType(api.template, 'AWS::ApiGateway::Method').map(
    ([, method]) => Number((method.Properties?.Integration as { TimeoutInMillis?: unknown } | undefined)?.TimeoutInMillis ?? 29_000),
  );
  return {
    routes,
    authorizerCacheTtlMs: Number(ttl ?? 300) * 1000,
    gatewayResponses: gatewayResponsesFromTemplate(api),
    binaryMediaTypes: Array.isArray(binaryMediaTypes) ? binaryMediaTypes.map((type) => unescapeMediaType(String(type))) : [],
    integrationTimeoutMs: Math.max(...timeouts, 0) || 29_000,
  };
};
