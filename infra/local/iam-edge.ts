// Local stack: IAM, as far as the functions can tell. An HTTP proxy in front of DynamoDB Local, the SQS server, the KMS
// emulation (kms.ts, whose key policies it enforces beside the role policies), the Secrets Manager emulation
// (secrets-manager.ts) and the EventBridge Scheduler emulation (scheduler.ts):
// it reads the SigV4 credential of each request to know which function calls, derives the IAM actions and resources
// the request needs (each TransactItems entry, each table of a batch, the index of a Query, the queue of a
// SendMessage) and refuses what that function's grants (shared/operations/grants.ts) do not allow, with the error
// AWS answers. Allowed requests pass through byte for byte (the local servers do not verify signatures).
// Tests, provisioning and tools use the admin key and pass unchecked; any other key is refused. In the fault mode
// (faults.ts, edge-faults.ts) a function's allowed call may instead be refused, delayed, never answered, or answered
// after its caller is killed, and an index query may read the index as it was a moment ago (index-lag.ts), as a rule
// says; without it, nothing changes.
import { randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { PolicyConditions, PolicyStatement } from '#shared/operations/grants';
import { schedulerServicePrincipal } from '#shared/operations/grants';
import { dynamoDbRefusal, type TableKeys } from './dynamodb-fidelity';
import { faultErrorReply, laggedReadOf, operationOf, partialBatchOf, transactionConflictReply, transactionThrottledReply, type LaggedRead, type PartialBatch } from './edge-faults';
import { batchEdgeEffects, edgeEffects, faultServices, type FaultEngine, type FaultService } from './faults';
import type { IndexLag } from './index-lag';
import { jsonOperationOf, jsonTargetPrefixes } from './aws-json-server';
import { requestedKeyId, type KeyPolicyStatement } from './kms';
import { closeServer, listen, localAccountId, localRegion, readRequestBody } from './local-aws';
import { isJsonObject } from '#shared/openapi/types';

/** One action on one resource that a request needs, with the request's condition keys (`iam:PassedToService`). */
export interface RequiredAccess {
  readonly action: string;
  readonly resource: string;
  /** Condition keys: a string, or a list for a multivalued key (`kms:EncryptionContextKeys`). */
  readonly context?: Readonly<Record<string, string | readonly string[]>>;
}

/**
 * A statement the edge enforces: Allow unless `effect` says Deny (an explicit Deny wins, as in IAM); `source` names
 * where it is written (the template's policy and statement index) for the log of a refusal.
 */
export interface EdgeStatement extends PolicyStatement {
  readonly effect?: 'Allow' | 'Deny';
  readonly source?: string;
}

/** A function the edge knows by its access key id. */
export interface EdgeIdentity {
  readonly functionName: string;
  readonly statements: readonly EdgeStatement[];
  /** Where its statements come from (`BusinessPlatform-Api TenantLocationDeleteRoleDefaultPolicyB515BF84`), for the log. */
  readonly policySource?: string;
  /** Its role's ARN (`aws:PrincipalArn`, and the principal a key policy may name); `<fn>-role` by default. */
  readonly roleArn?: string;
}


const tableArn = (tableName: unknown): string =>
  typeof tableName === 'string' && tableName !== '' ? `arn:aws:dynamodb:${localRegion}:${localAccountId}:table/${tableName}` : '*';

/** TransactWriteItems/TransactGetItems entry types and the action each is authorised as (AWS: "Using IAM with DynamoDB transactions"). */
const transactionEntryActions = new Map([
  ['Put', 'dynamodb:PutItem'],
  ['Update', 'dynamodb:UpdateItem'],
  ['Delete', 'dynamodb:DeleteItem'],
  ['ConditionCheck', 'dynamodb:ConditionCheckItem'],
  ['Get', 'dynamodb:GetItem'],
]);

/** Operations authorised against an index's ARN when the request names one. */
const indexOperations = new Set(['Query', 'Scan']);

/**
 * The accesses a DynamoDB request needs, from `X-Amz-Target` (`DynamoDB_20120810.<Operation>`) and its JSON body.
 * What cannot be attributed to a table (an unknown entry type, a missing TableName, PartiQL) needs its action on
 * `*`, which no grant allows: the edge refuses what it cannot check.
 */
export const dynamoDbAccess = (target: string, body: unknown): RequiredAccess[] => {
  const operation = target.slice(target.indexOf('.') + 1);
  const input = isJsonObject(body) ? body : {};
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    const entries = Array.isArray(input.TransactItems) ? input.TransactItems : [];
    if (entries.length === 0) return [{ action: `dynamodb:${operation}`, resource: '*' }];
    return entries.map((entry) => {
      const [type, request] = isJsonObject(entry) ? (Object.entries(entry)[0] ?? []) : [];
      const action = typeof type === 'string' ? transactionEntryActions.get(type) : undefined;
      if (!action || !isJsonObject(request)) return { action: `dynamodb:${operation}`, resource: '*' };
      return { action, resource: tableArn(request.TableName) };
    });
  }
  if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') {
    const tables = isJsonObject(input.RequestItems) ? Object.keys(input.RequestItems) : [];
    if (tables.length === 0) return [{ action: `dynamodb:${operation}`, resource: '*' }];
    return tables.map((table) => ({ action: `dynamodb:${operation}`, resource: tableArn(table) }));
  }
  const resource = tableArn(input.TableName);
  const index = indexOperations.has(operation) && typeof input.IndexName === 'string' ? input.IndexName : undefined;
  return [{ action: `dynamodb:${operation}`, resource: index !== undefined && resource !== '*' ? `${resource}/index/${index}` : resource }];
};

/** SQS operations authorised as another action (AWS: the batch actions need the single-message permission). */
const sqsActionOf = new Map([
  ['SendMessageBatch', 'SendMessage'],
  ['DeleteMessageBatch', 'DeleteMessage'],
  ['ChangeMessageVisibilityBatch', 'ChangeMessageVisibility'],
]);

const queueArn = (name: string | undefined): string =>
  name && /^[A-Za-z0-9_-]{1,80}(\.fifo)?$/.test(name) ? `arn:aws:sqs:${localRegion}:${localAccountId}:${name}` : '*';

const queueNameOfUrl = (url: unknown): string | undefined => {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).pathname.split('/').filter(Boolean).at(-1);
  } catch {
    return undefined;
  }
};

/**
 * The access an SQS request needs: the operation from `X-Amz-Target` (`AmazonSQS.<Operation>`, JSON protocol) or
 * the `Action` of a query-protocol form, the queue from `QueueUrl` (or `QueueName` for GetQueueUrl/CreateQueue).
 */
export const sqsAccess = (operation: string, body: unknown): RequiredAccess[] => {
  const input = isJsonObject(body) ? body : {};
  const action = `sqs:${sqsActionOf.get(operation) ?? operation}`;
  const name = input.QueueUrl !== undefined ? queueNameOfUrl(input.QueueUrl) : typeof input.QueueName === 'string' ? input.QueueName : undefined;
  return [{ action, resource: queueArn(name) }];
};

/**
 * The EventBridge Scheduler accesses of a REST request (`POST|PUT|GET|DELETE /schedules/{Name}`, `GET /schedules`):
 * `scheduler:<Operation>` on the schedule's ARN (`schedule/<group>/<name>`, group `default` when none is named),
 * ListSchedules on `*` (it has no resource-level permission), and for a create or update `iam:PassRole` of the
 * target's role, passed to scheduler.amazonaws.com. What cannot be attributed needs its action on `*`.
 */
export const schedulerAccess = (method: string, url: string, body: unknown): RequiredAccess[] => {
  const { pathname, searchParams } = new URL(url, 'http://edge');
  const input = isJsonObject(body) ? body : {};
  if (pathname === '/schedules' && method === 'GET') return [{ action: 'scheduler:ListSchedules', resource: '*' }];
  const match = /^\/schedules\/([^/]+)$/.exec(pathname);
  const operation = new Map([
    ['POST', 'CreateSchedule'],
    ['PUT', 'UpdateSchedule'],
    ['GET', 'GetSchedule'],
    ['DELETE', 'DeleteSchedule'],
  ]).get(method);
  if (!match || !operation) return [{ action: 'scheduler:Unknown', resource: '*' }];
  let name: string;
  try {
    name = decodeURIComponent(match[1] as string);
  } catch {
    return [{ action: `scheduler:${operation}`, resource: '*' }];
  }
  const group = (operation === 'CreateSchedule' || operation === 'UpdateSchedule' ? input.GroupName : searchParams.get('groupName')) ?? 'default';
  const resource = typeof group === 'string' ? `arn:aws:scheduler:${localRegion}:${localAccountId}:schedule/${group}/${name}` : '*';
  const accesses: RequiredAccess[] = [{ action: `scheduler:${operation}`, resource }];
  if (operation === 'CreateSchedule' || operation === 'UpdateSchedule') {
    const roleArn = isJsonObject(input.Target) && typeof input.Target.RoleArn === 'string' ? input.Target.RoleArn : '*';
    accesses.push({ action: 'iam:PassRole', resource: roleArn, context: { 'iam:PassedToService': schedulerServicePrincipal } });
  }
  return accesses;
};

/**
 * The access a KMS request needs (JSON protocol, `TrentService.<Operation>`): `kms:<Operation>` on the key its
 * KeyId names (key id, key ARN or alias), or for a Decrypt without one the key its ciphertext names, with the
 * condition keys of its encryption context (`kms:EncryptionContextKeys`, `kms:EncryptionContext:<key>`). A key
 * the local KMS does not hold needs the action on `*`, which no grant allows.
 */
export const kmsAccess = (operation: string, body: unknown, keyArnOf: (keyId: string) => string | undefined): RequiredAccess[] => {
  const input = isJsonObject(body) ? body : {};
  const keyId = requestedKeyId(operation, input);
  const resource = (keyId === undefined ? undefined : keyArnOf(keyId)) ?? '*';
  const context: Record<string, string | readonly string[]> = {};
  if (isJsonObject(input.EncryptionContext)) {
    const pairs = Object.entries(input.EncryptionContext).filter((pair): pair is [string, string] => typeof pair[1] === 'string');
    context['kms:EncryptionContextKeys'] = pairs.map(([key]) => key);
    for (const [key, value] of pairs) context[`kms:EncryptionContext:${key}`] = value;
  }
  return [{ action: `kms:${operation}`, resource, context }];
};

/**
 * The access a Secrets Manager request needs (JSON protocol, `secretsmanager.<Operation>`): `secretsmanager:<Operation>`
 * on the full ARN of the secret its SecretId names (ARN, name or partial ARN, as AWS authorises against the secret's
 * ARN whichever form names it). A secret the local Secrets Manager does not hold needs the action on `*`, which no
 * grant allows.
 */
export const secretsManagerAccess = (operation: string, body: unknown, secretArnOf: (secretId: string) => string | undefined): RequiredAccess[] => {
  const input = isJsonObject(body) ? body : {};
  const resource = (typeof input.SecretId === 'string' ? secretArnOf(input.SecretId) : undefined) ?? '*';
  return [{ action: `secretsmanager:${operation}`, resource }];
};

/** An IAM resource pattern (`*` any run of characters, `?` one) as a test of a resource. */
const resourceMatches = (pattern: string, resource: string): boolean => {
  if (!pattern.includes('*') && !pattern.includes('?')) return pattern === resource;
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(resource);
};

/**
 * The condition operators the grants use, judged against the request's context: StringEquals, StringLike,
 * ArnLike, ForAllValues:StringEquals (list keys) and Null. An operator or key the edge cannot judge fails the
 * statement (deny by default), as a condition on a key the request lacks does on AWS.
 */
const conditionsHold = (conditions: PolicyConditions | undefined, context: NonNullable<RequiredAccess['context']>): boolean =>
  Object.entries(conditions ?? {}).every(([operator, keys]) =>
    Object.entries(keys).every(([key, expected]) => {
      const allowed = typeof expected === 'string' ? [expected] : [...expected];
      const actual = Object.hasOwn(context, key) ? context[key] : undefined;
      if (operator === 'Null') return allowed.includes(actual === undefined ? 'true' : 'false');
      // ForAllValues: every value of the key is allowed (true for a key with no values, as IAM documents).
      if (operator === 'ForAllValues:StringEquals') return (actual === undefined ? [] : typeof actual === 'string' ? [actual] : actual).every((value) => allowed.includes(value));
      if (typeof actual !== 'string') return false;
      if (operator === 'StringEquals') return allowed.includes(actual);
      if (operator === 'StringLike' || operator === 'ArnLike') return allowed.some((pattern) => resourceMatches(pattern, actual));
      return false;
    }),
  );

/** IAM matches action names case-insensitively, with `*` and `?` wildcards (`dynamodb:*`, `dynamodb:Get*`). */
const actionMatches = (pattern: string, action: string): boolean => resourceMatches(pattern.toLowerCase(), action.toLowerCase());

/** Whether a statement covers a request: one of its actions, one of its resources, and all its conditions. */
export const statementCovers = (statement: EdgeStatement, required: RequiredAccess): boolean =>
  statement.actions.some((action) => actionMatches(action, required.action)) &&
  statement.resources.some((resource) => resourceMatches(resource, required.resource)) &&
  conditionsHold(statement.conditions, required.context ?? {});

/**
 * IAM's evaluation of identity policies: an explicit Deny that covers the request refuses it; otherwise an Allow
 * that covers it allows it; otherwise it is refused (implicit deny). Resources match exactly or by pattern.
 */
export const statementsAllow = (statements: readonly EdgeStatement[], required: RequiredAccess): boolean =>
  !statements.some((statement) => statement.effect === 'Deny' && statementCovers(statement, required)) &&
  statements.some((statement) => statement.effect !== 'Deny' && statementCovers(statement, required));

const passed = (required: RequiredAccess): Record<string, string> | undefined => {
  const entries = Object.entries(required.context ?? {}).filter(([key]) => key.startsWith('iam:'));
  return entries.length ? Object.fromEntries(entries.map(([key, value]) => [key, String(value)])) : undefined;
};

/**
 * Why a request was refused, for the stack's log: the function, the action and resource, the Deny that refused it
 * or the statements that came closest (same resource, other actions), and the statement that would allow it.
 */
export const explainRefusal = (identity: EdgeIdentity, required: RequiredAccess): string => {
  const deny = identity.statements.find((statement) => statement.effect === 'Deny' && statementCovers(statement, required));
  const head = `[iam-edge] AccessDeniedException: ${identity.functionName} may not ${required.action} on ${required.resource}`;
  if (deny) return `${head}: explicitly denied by ${deny.source ?? 'a Deny statement'}`;
  // The statements that name this resource (a `*` one, such as X-Ray's, says nothing about it; one left with no
  // action allows nothing).
  const onResource = identity.statements.filter(
    (statement) =>
      statement.effect !== 'Deny' &&
      statement.actions.length > 0 &&
      statement.resources.some((resource) => resource !== '*' && resourceMatches(resource, required.resource)),
  );
  const closest = onResource.length
    ? `; on that resource it is allowed only ${onResource.map((statement) => `${statement.actions.join(', ')} (${statement.source ?? 'its grants'})`).join('; ')}`
    : '; no statement names that resource';
  const wouldAllow = JSON.stringify({
    Effect: 'Allow',
    Action: required.action,
    Resource: required.resource,
    // The condition a grant gives it (iam:PassedToService); a request's own keys (an encryption context) are not a grant's.
    ...(passed(required) ? { Condition: { StringEquals: passed(required) } } : {}),
  });
  return `${head}: no statement of ${identity.policySource ?? 'its grants'} allows it${closest}. The statement that would allow it: ${wouldAllow}`;
};

/** A resource-based policy the edge enforces beside the caller's role policies: a KMS key policy. */
export interface ResourcePolicy {
  readonly statements: readonly KeyPolicyStatement[];
  /** Where it is written (`BusinessPlatform-Data SecretFieldsKey3F57D89E`), for the log. */
  readonly source: string;
}

/** The account's root principal: a key policy statement naming it delegates the decision to IAM policies. */
export const accountRootArn = `arn:aws:iam::${localAccountId}:root`;

/** The role a function's identity is (`aws:PrincipalArn`). */
export const roleArnOf = (identity: EdgeIdentity): string => identity.roleArn ?? `arn:aws:iam::${localAccountId}:role/${identity.functionName}-role`;

export type KeyPolicyDecision =
  | { readonly kind: 'allowed' }
  /** The key policy delegates to IAM: the role's policies decide. */
  | { readonly kind: 'delegated'; readonly statement: KeyPolicyStatement }
  | { readonly kind: 'refused'; readonly explanation: string };

/**
 * AWS's evaluation of a same-account KMS key's policy: an explicit Deny that names the caller refuses; an Allow that
 * names the caller's role (or `*`) allows by itself; an Allow that names the account root delegates to the caller's
 * IAM policies, which must then allow too; nothing else allows (the key policy is the primary authority: without it,
 * no IAM policy grants access to a key).
 */
export const keyPolicyDecision = (policy: ResourcePolicy, identity: EdgeIdentity, required: RequiredAccess): KeyPolicyDecision => {
  const principalArn = roleArnOf(identity);
  const names = (statement: KeyPolicyStatement, principals: readonly string[]) => statement.principals.some((principal) => principals.includes(principal));
  const covering = policy.statements.filter((statement) => names(statement, ['*', principalArn, accountRootArn]) && statementCovers(statement, required));
  const head = `[iam-edge] AccessDeniedException: ${identity.functionName} may not ${required.action} on ${required.resource}`;
  const deny = covering.find((statement) => statement.effect === 'Deny');
  if (deny) return { kind: 'refused', explanation: `${head}: explicitly denied by the key policy (${deny.source})` };
  if (covering.some((statement) => statement.effect === 'Allow' && names(statement, ['*', principalArn]))) return { kind: 'allowed' };
  const delegating = covering.find((statement) => statement.effect === 'Allow');
  if (delegating) return { kind: 'delegated', statement: delegating };
  const onAction = policy.statements.filter((statement) => statement.effect === 'Allow' && statement.actions.some((action) => actionMatches(action, required.action)));
  const closest = onAction.length
    ? `; the statements that name ${required.action} (${onAction.map((statement) => statement.source).join('; ')}) do not cover ${principalArn} or this request's conditions`
    : `; no statement of it names ${required.action}`;
  const wouldAllow = JSON.stringify({ Effect: 'Allow', Principal: { AWS: accountRootArn }, Action: required.action, Resource: '*' });
  return {
    kind: 'refused',
    explanation: `${head}: no statement of the key policy (${policy.source}) allows it${closest}. The key policy statement that would allow it (delegating to the role's policies): ${wouldAllow}`,
  };
};

/**
 * The access key of a function's execution environment in slot n (function-host.ts): the function's key for the
 * first, `<key>ENV<n>` for the others (letters and digits only, as DynamoDB Local requires). The edge knows the
 * function by the key without the suffix and the environment by the whole key (the one commit-then-crash kills).
 */
export const environmentKeyOf = (functionKey: string, slot: number): string => (slot === 1 ? functionKey : `${functionKey}ENV${slot}`);
export const functionKeyOf = (accessKeyId: string): string => accessKeyId.replace(/ENV\d+$/, '');

/** `AWS4-HMAC-SHA256 Credential=<key id>/<date>/<region>/<service>/aws4_request, ...` -> key id and service. */
export const credentialOf = (authorization: string | undefined): { accessKeyId: string; service: string } | undefined => {
  const match = /Credential=([^/,\s]+)\/\d{8}\/[^/]+\/([^/]+)\/aws4_request/.exec(authorization ?? '');
  return match ? { accessKeyId: match[1] as string, service: match[2] as string } : undefined;
};

/** The identity AWS names in an AccessDenied message: the function's role session. */
export const callerArn = (functionName: string): string => `arn:aws:sts::${localAccountId}:assumed-role/${functionName}-role/${functionName}`;

interface ErrorReply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * What AWS answers when an identity policy does not allow an action, in each service's protocol. DynamoDB:
 * `__type` `com.amazon.coral.service#AccessDeniedException` (the SDK throws `AccessDeniedException`). SQS (JSON
 * protocol, query-compatible): the same `__type` plus `x-amzn-query-error: AccessDenied;Sender`, from which the
 * SDK names the error `AccessDenied`, as SQS's own errors are named; SQS spells the action in lower case.
 */
export const accessDenied = (service: string, functionName: string, required: RequiredAccess, policyKind: 'identity' | 'resource' = 'identity'): ErrorReply => {
  const action = service === 'sqs' ? required.action.toLowerCase() : required.action;
  const message =
    `User: ${callerArn(functionName)} is not authorized to perform: ${action} on resource: ${required.resource} ` +
    `because no ${policyKind}-based policy allows the ${action} action`;
  const requestId = randomUUID();
  if (service === 'scheduler') {
    // REST-JSON: the status and the x-amzn-ErrorType header name the error.
    return {
      status: 403,
      headers: { 'Content-Type': 'application/json', 'x-amzn-RequestId': requestId, 'x-amzn-ErrorType': 'AccessDeniedException' },
      body: JSON.stringify({ Message: message }),
    };
  }
  if (service === 'sqs') {
    return {
      status: 400,
      headers: { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': requestId, 'x-amzn-query-error': 'AccessDenied;Sender' },
      body: JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', message }),
    };
  }
  return {
    status: 400,
    headers: { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': requestId },
    body: JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', Message: message }),
  };
};

const plainError = (status: number, type: string, message: string): ErrorReply => ({
  status,
  headers: { 'Content-Type': 'application/x-amz-json-1.0', 'x-amzn-RequestId': randomUUID() },
  body: JSON.stringify({ __type: `com.amazon.coral.service#${type}`, message }),
});

/** The accesses of a request to an emulated service, or undefined for a service the edge does not know. */
const accessOf = (
  service: string,
  request: IncomingMessage,
  body: Buffer,
  keyArnOf: (keyId: string) => string | undefined,
  secretArnOf: (secretId: string) => string | undefined,
): RequiredAccess[] | undefined => {
  const target = String(request.headers['x-amz-target'] ?? '');
  const text = body.toString('utf8');
  /** The body as JSON (`empty` for no body), or undefined when it is not JSON: the service then refuses it. */
  const json = (empty?: unknown): unknown => {
    if (text === '' && empty !== undefined) return empty;
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  if (service === 'secretsmanager') return secretsManagerAccess(jsonOperationOf(target, jsonTargetPrefixes.secretsmanager) ?? 'Unknown', json(), secretArnOf);
  if (service === 'kms') return kmsAccess(jsonOperationOf(target, jsonTargetPrefixes.kms) ?? 'Unknown', json(), keyArnOf);
  if (service === 'scheduler') return schedulerAccess(request.method ?? 'GET', request.url ?? '/', json({}));
  if (service === 'dynamodb') return dynamoDbAccess(target || 'DynamoDB_20120810.Unknown', json());
  if (service === 'sqs') {
    if (target) return sqsAccess(target.slice(target.indexOf('.') + 1), json());
    const form = new URLSearchParams(text);
    return sqsAccess(form.get('Action') ?? 'Unknown', Object.fromEntries(form));
  }
  return undefined;
};

export interface IamEdgeOptions {
  /** Where each emulated service really listens, by SigV4 service name (`dynamodb`, `sqs`, `kms`, `secretsmanager`, `scheduler`). */
  readonly upstreams: ReadonlyMap<string, string>;
  /** Functions by access key id. */
  readonly identities: ReadonlyMap<string, EdgeIdentity>;
  /** The key of tests, provisioning and tools: passes unchecked. */
  readonly adminAccessKeyId: string;
  /** The local KMS's keys: the key ARN a KeyId names, and each key's policy (both judged with the role's policies). */
  readonly kmsKeys?: {
    keyArnOf(keyId: string): string | undefined;
    policyOf(keyArn: string): ResourcePolicy | undefined;
  };
  /** The local Secrets Manager's secrets: the full ARN a SecretId names (the role's policies judge that ARN). */
  readonly secrets?: { secretArnOf(secretId: string): string | undefined };
  readonly port?: number;
  readonly log?: (line: string) => void;
  /** The fault mode (faults.ts): absent, every allowed call passes through untouched. */
  readonly faults?: EdgeFaultOptions;
  /**
   * The key attributes of each local table by name: with them, a function's request DynamoDB would refuse and
   * DynamoDB Local accepts is refused as DynamoDB refuses it (dynamodb-fidelity.ts).
   */
  readonly tableKeys?: ReadonlyMap<string, TableKeys>;
}

export interface EdgeFaultOptions {
  readonly engine: FaultEngine;
  /** Kills the process of the function that made a call (commit-then-crash); resolves once it is gone. */
  killCaller(functionName: string, accessKeyId: string): Promise<void>;
  /** The lagging indexes of `index-lag` rules (index-lag.ts): the edge keeps their lag the rules' longest. */
  readonly indexLag: IndexLag;
}

export interface RunningIamEdge {
  /** `http://127.0.0.1:<port>`: the endpoint functions get for every emulated service. */
  readonly endpoint: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * How long the edge waits for a local service to answer (after which the caller gets a 503): longer than SQS's
 * longest poll (20 s), far longer than the functions' SDK request timeout (shared/aws-requests.ts).
 */
const upstreamTimeoutMs = 30_000;

/** DynamoDB's largest request is far below this; anything bigger is refused before it is buffered. */
const maxRequestBytes = 32 * 1024 * 1024;

/** A request's headers as forwarded with `body` (the edge may send another body than the one it was given). */
const sentHeaders = (request: IncomingMessage, body: Buffer) =>
  request.headers['content-length'] === String(body.length) ? request.headers : { ...request.headers, 'content-length': String(body.length) };

export const startIamEdge = async (options: IamEdgeOptions): Promise<RunningIamEdge> => {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  const reply = (response: ServerResponse, { status, headers, body }: ErrorReply) => {
    response.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
    response.end(body);
  };

  const forward = (request: IncomingMessage, response: ServerResponse, upstream: string, body: Buffer) => {
    const target = new URL(upstream);
    const outgoing = httpRequest(
      { hostname: target.hostname, port: target.port, method: request.method, path: request.url, headers: sentHeaders(request, body) },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(response);
      },
    );
    // A service that never answers must not hold the call forever (the caller's SDK gives up sooner).
    outgoing.setTimeout(upstreamTimeoutMs, () => outgoing.destroy(new Error(`no answer within ${upstreamTimeoutMs} ms`)));
    outgoing.once('error', (error) => {
      log(`[iam-edge] ${upstream} unreachable: ${error.message}`);
      if (!response.headersSent) reply(response, plainError(503, 'ServiceUnavailable', 'The local service is unavailable.'));
      else response.destroy();
    });
    outgoing.end(body);
  };

  /** Forwards a request and reads the whole answer (the fault mode looks at it before the caller does). */
  const relay = (request: IncomingMessage, upstream: string, body: Buffer) =>
    new Promise<{ status: number; rawHeaders: string[]; body: Buffer }>((resolve, reject) => {
      const target = new URL(upstream);
      const outgoing = httpRequest(
        { hostname: target.hostname, port: target.port, method: request.method, path: request.url, headers: sentHeaders(request, body) },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.once('end', () => resolve({ status: answer.statusCode ?? 502, rawHeaders: answer.rawHeaders, body: Buffer.concat(chunks) }));
          answer.once('error', reject);
        },
      );
      outgoing.setTimeout(upstreamTimeoutMs, () => outgoing.destroy(new Error(`no answer within ${upstreamTimeoutMs} ms`)));
      outgoing.once('error', reject);
      outgoing.end(body);
    });

  // The lag of the indexes follows the rules: the longest `index-lag` of them, none without one.
  if (options.faults) {
    const { engine, indexLag } = options.faults;
    const followRules = () => void indexLag.setLag(Math.max(0, ...engine.current().rules.map((rule) => (rule.effect.type === 'index-lag' ? rule.effect.ms : 0))));
    engine.onChange(followRules);
    followRules();
  }

  /**
   * A function's allowed call under the fault mode: the first rule that matches it (faults.ts) answers an error (with
   * `forward`, after the call landed) or a conflict, holds it, never answers it, or forwards it and kills the caller
   * before it reads the answer; a Query on an index, or a read of the table that is not strongly consistent, reads it
   * as it was N ms ago (index-lag.ts: the replica of an index-lag rule; edge-faults.ts `laggedReadOf`).
   */
  const forwardWithFaults = async (
    faults: EdgeFaultOptions,
    request: IncomingMessage,
    response: ServerResponse,
    upstream: string,
    body: Buffer,
    service: string,
    caller: { functionName: string; accessKeyId: string },
  ) => {
    if (!faultServices.includes(service as FaultService)) return forward(request, response, upstream, body);
    const { engine } = faults;
    const operation = operationOf(service, request, body);
    const call = { service: service as FaultService, operation, caller: caller.functionName };
    const batch = service === 'dynamodb' ? partialBatchOf(operation, body) : undefined;
    const effect = engine.decide(call, batch ? batchEdgeEffects : edgeEffects)?.effect;
    /** A write lands only once an index lag is in place, so that it reaches the replica through the stream, late. */
    const lagReady = async () => {
      if (service === 'dynamodb' && engine.has('index-lag')) await faults.indexLag.ready();
    };
    if (effect?.type === 'error') {
      // With forward, the call lands first; its caller gets the error all the same (a write answered 500 after it applied).
      if (effect.forward) await lagReady().then(() => relay(request, upstream, body)).catch((error: unknown) => log(`[iam-edge] ${upstream} unreachable: ${String(error)}`));
      return reply(response, faultErrorReply(service, request, effect));
    }
    if (effect?.type === 'transaction-conflict') return reply(response, transactionConflictReply(operation, body));
    if (effect?.type === 'transaction-throttled') return reply(response, transactionThrottledReply(operation, body));
    if (effect?.type === 'hang') {
      // Never answered: the caller's SDK timeout ends it. With forward, the call lands all the same.
      if (effect.forward) lagReady().then(() => relay(request, upstream, body)).catch((error: unknown) => log(`[iam-edge] ${upstream} unreachable: ${String(error)}`));
      return;
    }
    if (effect?.type === 'unprocessed' && batch) {
      // A batch write lands only once an index lag is in place (as every write does). A batch read forwarded in part
      // reads the table as it is, even one not strongly consistent: the two faults are not combined.
      await lagReady();
      return forwardPartial(request, response, upstream, batch, caller.functionName);
    }
    if (effect?.type === 'latency') await new Promise((resolve) => setTimeout(resolve, effect.ms));
    if (service === 'dynamodb' && engine.has('index-lag')) {
      await lagReady();
      const read = effect === undefined ? laggedReadOf(operation, body) : undefined;
      const lag = read ? engine.decide(call, ['index-lag'])?.effect : undefined;
      if (read && lag?.type === 'index-lag') {
        const replicas = new Map<string, string>();
        for (const table of read.tables) {
          const replica = await faults.indexLag.replicaOf(table);
          if (replica !== undefined) replicas.set(table, replica);
        }
        if (replicas.size > 0) return forwardLagged(request, response, upstream, read, replicas, caller.functionName);
      }
    }
    if (effect?.type !== 'commit-then-crash') return forward(request, response, upstream, body);

    try {
      await relay(request, upstream, body);
    } catch (error) {
      log(`[iam-edge] ${upstream} unreachable: ${(error as Error).message}`);
      return reply(response, plainError(503, 'ServiceUnavailable', 'The local service is unavailable.'));
    }
    // The write landed; its caller dies before the answer reaches it.
    await faults.killCaller(caller.functionName, caller.accessKeyId);
    response.destroy();
  };

  /**
   * A lagged read (an index, or the table read eventually consistently) on the lagging replicas of its tables (as
   * they were a moment ago): the same request but for the tables it names, the answer as DynamoDB gives it (the
   * table's name again where it names one).
   */
  const forwardLagged = async (
    request: IncomingMessage,
    response: ServerResponse,
    upstream: string,
    read: LaggedRead,
    replicas: ReadonlyMap<string, string>,
    functionName: string,
  ) => {
    let answer: Awaited<ReturnType<typeof relay>>;
    try {
      answer = await relay(request, upstream, read.onReplicas(replicas));
    } catch (error) {
      log(`[iam-edge] ${upstream} unreachable: ${(error as Error).message}`);
      return reply(response, plainError(503, 'ServiceUnavailable', 'The local service is unavailable.'));
    }
    log(`[iam-edge] index lag: ${functionName} reads ${[...replicas.keys()].join(', ')} ${read.what} as it was`);
    const text = answer.body.toString('utf8');
    const renamed = [...replicas].filter(([, replica]) => text.includes(JSON.stringify(replica)));
    if (renamed.length === 0) {
      response.writeHead(answer.status, answer.rawHeaders);
      response.end(answer.body);
      return;
    }
    answerWithBody(response, answer, Buffer.from(renamed.reduce((named, [table, replica]) => named.split(JSON.stringify(replica)).join(JSON.stringify(table)), text)));
  };

  /** An upstream answer with another body: its length and DynamoDB's CRC32 of it go. */
  const answerWithBody = (response: ServerResponse, answer: { status: number; rawHeaders: string[] }, body: Buffer) => {
    const rawHeaders = answer.rawHeaders.flatMap((value, index, all) =>
      index % 2 === 0 && !['content-length', 'x-amz-crc32'].includes(value.toLowerCase()) ? [value, all[index + 1] as string] : [],
    );
    rawHeaders.push('Content-Length', String(body.length));
    response.writeHead(answer.status, rawHeaders);
    response.end(body);
  };

  /** A batch processed in part (`unprocessed`, edge-faults.ts `partialBatchOf`): half of it forwarded, the rest answered unprocessed. */
  const forwardPartial = async (request: IncomingMessage, response: ServerResponse, upstream: string, batch: PartialBatch, functionName: string) => {
    let answer: Awaited<ReturnType<typeof relay>>;
    try {
      answer = await relay(request, upstream, batch.forwarded);
    } catch (error) {
      log(`[iam-edge] ${upstream} unreachable: ${(error as Error).message}`);
      return reply(response, plainError(503, 'ServiceUnavailable', 'The local service is unavailable.'));
    }
    if (answer.status !== 200) {
      response.writeHead(answer.status, answer.rawHeaders);
      response.end(answer.body);
      return;
    }
    log(`[iam-edge] unprocessed: ${functionName}'s batch processed in part`);
    answerWithBody(response, answer, batch.answer(answer.body));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readRequestBody(request, maxRequestBytes);
    if (body === undefined) return reply(response, plainError(413, 'RequestEntityTooLarge', 'Request too large.'));
    const credential = credentialOf(request.headers.authorization);
    if (!credential) return reply(response, plainError(400, 'MissingAuthenticationTokenException', 'Missing Authentication Token'));
    const upstream = options.upstreams.get(credential.service);
    if (credential.accessKeyId === options.adminAccessKeyId) {
      if (!upstream) return reply(response, plainError(501, 'NotImplemented', `The local stack does not emulate ${credential.service}.`));
      return forward(request, response, upstream, body);
    }
    const identity = options.identities.get(credential.accessKeyId) ?? options.identities.get(functionKeyOf(credential.accessKeyId));
    if (!identity) {
      return reply(response, plainError(400, 'UnrecognizedClientException', 'The security token included in the request is invalid.'));
    }
    if (!upstream) {
      return reply(response, plainError(501, 'NotImplemented', `The local stack does not emulate ${credential.service}.`));
    }
    const keys = options.kmsKeys;
    const accesses = (
      accessOf(credential.service, request, body, (keyId) => keys?.keyArnOf(keyId), (secretId) => options.secrets?.secretArnOf(secretId)) ?? []
    ).map((access) =>
      credential.service === 'kms' ? { ...access, context: { ...access.context, 'aws:PrincipalArn': roleArnOf(identity) } } : access,
    );
    for (const access of accesses) {
      // A KMS key's policy first (it is the primary authority); the role's policies decide when it delegates.
      const policy = credential.service === 'kms' ? keys?.policyOf(access.resource) : undefined;
      const decision: KeyPolicyDecision | undefined = credential.service !== 'kms' ? undefined : policy ? keyPolicyDecision(policy, identity, access) : {
        kind: 'refused',
        explanation: `[iam-edge] AccessDeniedException: ${identity.functionName} may not ${access.action} on ${access.resource}: the local KMS holds no such key`,
      };
      if (decision?.kind === 'refused') {
        log(decision.explanation);
        return reply(response, accessDenied(credential.service, identity.functionName, access, 'resource'));
      }
      const explicitlyDenied = identity.statements.some((statement) => statement.effect === 'Deny' && statementCovers(statement, access));
      if (decision?.kind === 'allowed' && !explicitlyDenied) continue;
      if (!statementsAllow(identity.statements, access)) {
        const delegated = decision?.kind === 'delegated' ? ` (the key policy delegates to it: ${decision.statement.source})` : '';
        log(`${explainRefusal(identity, access)}${delegated}`);
        return reply(response, accessDenied(credential.service, identity.functionName, access));
      }
    }
    if (credential.service === 'dynamodb' && options.tableKeys) {
      const operation = operationOf('dynamodb', request, body);
      const refusal = dynamoDbRefusal(operation, body, (tableName) => options.tableKeys?.get(tableName));
      if (refusal) {
        log(`[iam-edge] ValidationException: ${identity.functionName}'s ${operation} names one item in two actions: DynamoDB refuses it (DynamoDB Local would not)`);
        return reply(response, refusal);
      }
    }
    if (options.faults) {
      return forwardWithFaults(options.faults, request, response, upstream, body, credential.service, {
        functionName: identity.functionName,
        accessKeyId: credential.accessKeyId,
      });
    }
    return forward(request, response, upstream, body);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`[iam-edge] unexpected failure: ${String(error)}`);
      if (!response.headersSent) reply(response, plainError(500, 'InternalFailure', 'The local IAM edge failed.'));
      else response.destroy();
    });
  });
  // Long polls (ReceiveMessage waits up to 20 s) must not be cut by the server's own timeouts.
  server.requestTimeout = 0;
  const port = await listen(server, options.port ?? 0, '127.0.0.1');
  return {
    endpoint: `http://127.0.0.1:${port}`,
    server,
    close: async () => {
      await closeServer(server);
      await options.faults?.indexLag.close();
    },
  };
};
