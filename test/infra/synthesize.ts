// Infra tests: synthesizes the real app (infra/create-app.ts) with bundling skipped, so the templates are what
// `cdk synth` writes minus the esbuild step, and each test file costs one synth of a few seconds.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Stack, type CfnElement, type Environment } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { apiStackName, createApp, dataStackName, type BusinessPlatformApp } from '#infra/create-app';

export interface Synthesized extends BusinessPlatformApp {
  readonly api: Template;
  readonly data: Template;
  readonly apiJson: CfnTemplate;
  readonly dataJson: CfnTemplate;
  /** Removes the temporary cloud assembly. */
  readonly cleanUp: () => void;
}

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

export interface CfnTemplate {
  readonly Resources: Record<string, CfnResource>;
  readonly Parameters?: Record<string, Record<string, unknown>>;
  readonly Outputs?: Record<string, Record<string, unknown>>;
}

/**
 * The environments a synth must pass in: none (a library consumer's `createApp()`), and the concrete ones the `cdk`
 * CLI gives (it always sets a region), in each partition an acknowledgement or an ARN could spell differently.
 */
export const synthEnvironments: ReadonlyArray<readonly [string, Environment | undefined]> = [
  ['no environment', undefined],
  ['ap-southeast-2, account 123456789012', { account: '123456789012', region: 'ap-southeast-2' }],
  ['us-east-1, no account (the CLI without credentials)', { region: 'us-east-1' }],
  ['cn-north-1 (aws-cn partition)', { account: '123456789012', region: 'cn-north-1' }],
  ['us-gov-west-1 (aws-us-gov partition)', { account: '123456789012', region: 'us-gov-west-1' }],
];

/**
 * The context of cdk.json (feature flags such as enablePartitionLiterals), which the CLI gives every synth: without it
 * a test would synthesize another template than `cdk synth` does.
 */
export const cdkJsonContext = (): Record<string, unknown> =>
  (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }).context;

export const synthesize = (context: Record<string, unknown> = {}, env?: Environment): Synthesized => {
  const outdir = mkdtempSync(join(tmpdir(), 'infra-test-'));
  const built = createApp({
    ...(env ? { env } : {}),
    outdir,
    // An empty list of stacks to bundle: NodejsFunction skips esbuild and the asset gets a placeholder hash.
    context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [], ...context },
  });
  // The app's own synth, so the cdk-nag validation plugin runs exactly as under the CLI (it throws on findings).
  const assembly = built.app.synth();
  const apiJson = assembly.getStackByName(apiStackName).template as CfnTemplate;
  const dataJson = assembly.getStackByName(dataStackName).template as CfnTemplate;
  return {
    ...built,
    api: Template.fromJSON(apiJson),
    data: Template.fromJSON(dataJson),
    apiJson,
    dataJson,
    cleanUp: () => rmSync(outdir, { recursive: true, force: true }),
  };
};

/** Logical ids of the resources of one type. */
export const resourcesOfType = (template: CfnTemplate, type: string): Array<[string, CfnResource]> =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/** The logical id of a construct's CloudFormation resource (its default child, or itself for an L1). */
export const logicalIdOf = (construct: IConstruct): string => {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(element).getLogicalId(element);
};

/** Actions of a policy statement, always as an array. */
export const actionsOf = (statement: { Action?: unknown }): string[] =>
  Array.isArray(statement.Action) ? (statement.Action as string[]) : statement.Action ? [statement.Action as string] : [];

export const resourcesOf = (statement: { Resource?: unknown }): unknown[] =>
  Array.isArray(statement.Resource) ? statement.Resource : statement.Resource ? [statement.Resource] : [];

export interface PolicyStatement {
  readonly Effect: string;
  readonly Action?: unknown;
  readonly Resource?: unknown;
  readonly Condition?: unknown;
}

/** Every statement of every AWS::IAM::Policy attached to the role with this logical id. */
export const statementsOfRole = (template: CfnTemplate, roleLogicalId: string): PolicyStatement[] =>
  resourcesOfType(template, 'AWS::IAM::Policy')
    .filter(([, policy]) =>
      (policy.Properties!.Roles as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleLogicalId })),
    )
    .flatMap(([, policy]) => (policy.Properties!.PolicyDocument as { Statement: PolicyStatement[] }).Statement);

/**
 * What an `Fn::ImportValue` in the API stack stands for: the Value of the data stack's output exported under that
 * name (`{ Ref: ... }` or `{ 'Fn::GetAtt': [...] }`), so tests can say which resource and attribute is used.
 */
export const exportedValue = (synthesized: Synthesized, imported: unknown): unknown => {
  const name = (imported as { 'Fn::ImportValue'?: unknown })['Fn::ImportValue'];
  if (typeof name !== 'string') throw new Error(`Not an Fn::ImportValue: ${JSON.stringify(imported)}`);
  const output = Object.values(synthesized.dataJson.Outputs ?? {}).find(
    (candidate) => (candidate.Export as { Name?: unknown } | undefined)?.Name === name,
  );
  if (!output) throw new Error(`The data stack exports no ${name}`);
  return output.Value;
};

/** What an SQS event source mapping grants its consumer on the queue (CDK's `SqsEventSource`). */
export const sqsConsumeActions = [
  'sqs:ChangeMessageVisibility',
  'sqs:DeleteMessage',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
  'sqs:ReceiveMessage',
];

/** The shape of a queue definition of shared/events/queues.ts that the data stack creates. */
interface QueueDefinition {
  readonly logicalName: string;
  readonly visibilityTimeoutSeconds: number;
  readonly retentionPeriodSeconds: number;
  readonly maximumMessageBytes: number;
  readonly deadLetterQueue: { readonly maxReceiveCount: number };
}

/** The CloudFormation properties the data stack gives a queue of queues.ts: SSE-SQS, dead-lettering to its DLQ. */
export const expectedQueueProperties = (stackName: string, queue: QueueDefinition, deadLetterQueueId: string) => ({
  QueueName: `${stackName}-${queue.logicalName}`,
  VisibilityTimeout: queue.visibilityTimeoutSeconds,
  MessageRetentionPeriod: queue.retentionPeriodSeconds,
  MaximumMessageSize: queue.maximumMessageBytes,
  SqsManagedSseEnabled: true,
  RedrivePolicy: {
    deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterQueueId, 'Arn'] },
    maxReceiveCount: queue.deadLetterQueue.maxReceiveCount,
  },
});

/** The resource policies of the data stack that name exactly this queue. */
export const queuePoliciesOf = (template: CfnTemplate, queueLogicalId: string): Array<[string, CfnResource]> =>
  resourcesOfType(template, 'AWS::SQS::QueuePolicy').filter(
    ([, policy]) => JSON.stringify(policy.Properties!.Queues) === JSON.stringify([{ Ref: queueLogicalId }]),
  );
