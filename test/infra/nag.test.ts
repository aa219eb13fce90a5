// Infra tests: the AwsSolutions pack of cdk-nag finds nothing unacknowledged, and every acknowledgement in the
// tree carries a reason and still silences a real finding (none is left behind after the code changed).
import { App, Stack, Validations, type CfnResource } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks, NagPack } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { synthEnvironments, synthesize, type Synthesized } from './synthesize';

interface Acknowledgement {
  readonly path: string;
  readonly id: string;
  readonly reason: string;
}

/** Acknowledgements are stored as construct metadata, ids prefixed by their kind (`Annotation::`). */
const acknowledgementsIn = (root: IConstruct): Acknowledgement[] =>
  root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, string>).map(([id, reason]) => ({
          path: construct.node.path,
          id: id.replace(/^annotation::/i, ''),
          reason,
        })),
      ),
  );

/** The nearest construct, from the resource up, that acknowledges the rule: the same walk cdk-nag does. */
const acknowledgingPath = (resource: IConstruct, ruleId: string, acknowledgements: readonly Acknowledgement[]) => {
  for (let current: IConstruct | undefined = resource; current; current = current.node.scope) {
    const path = current.node.path;
    if (acknowledgements.some((ack) => ack.path === path && ack.id === ruleId)) return path;
  }
  return undefined;
};

/** Runs the pack over the app, recording which acknowledgement answered each finding it silenced. */
const runPack = (root: IConstruct, acknowledgements: readonly Acknowledgement[]) => {
  const used = new Set<string>();
  const pack = NagPack.prototype as unknown as { isAcknowledged(resource: CfnResource, ruleId: string): boolean };
  const original = pack.isAcknowledged;
  pack.isAcknowledged = function (this: NagPack, resource: CfnResource, ruleId: string): boolean {
    const acknowledged = original.call(this, resource, ruleId);
    const path = acknowledged ? acknowledgingPath(resource, ruleId, acknowledgements) : undefined;
    if (path) used.add(`${path} ${ruleId}`);
    return acknowledged;
  };
  try {
    return { report: new AwsSolutionsChecks().validateScope(root), used };
  } finally {
    pack.isAcknowledged = original;
  }
};

describe('cdk-nag AwsSolutions', () => {
  it('does report findings in this setup (control: a queue without TLS or DLQ)', () => {
    const stack = new Stack(new App(), 'Control');
    new Queue(stack, 'Queue');
    const findings = new AwsSolutionsChecks().validateScope(stack).violations.map((violation) => violation.ruleName);
    expect(findings).toEqual(expect.arrayContaining(['AwsSolutions-SQS3', 'AwsSolutions-SQS4']));
  });
});

const contexts: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['dev', {}],
  [
    'prod, auth and alarm e-mail from context',
    {
      stage: 'prod',
      authIssuer: 'https://issuer.example.com/',
      authJwksUrl: 'https://issuer.example.com/.well-known/jwks.json',
      authAudience: 'business-platform-api',
      alarmEmail: 'oncall@example.com',
    },
  ],
];

// Every stage in every environment: the CLI always gives a concrete region, and an acknowledgement that names the
// region (or partition, or account) one way is missed when the template names it another.
describe.each(contexts.flatMap(([stage, context]) => synthEnvironments.map(([where, env]) => [`${stage}; ${where}`, context, env] as const)))(
  'cdk-nag AwsSolutions on the app (%s)',
  (_, context, env) => {
  let synthesized: Synthesized;
  let acknowledgements: Acknowledgement[];
  let result: ReturnType<typeof runPack>;

  beforeAll(() => {
    // Synthesizing already runs the pack (it is registered on the app) and would throw on any finding; running
    // it again here gives the report to assert on.
    synthesized = synthesize(context, env);
    acknowledgements = acknowledgementsIn(synthesized.app);
    result = runPack(synthesized.app, acknowledgements);
  });
  afterAll(() => synthesized.cleanUp());

  it('reports no unacknowledged error or warning', () => {
    const findings = result.report.violations.map(
      (violation) =>
        `${violation.severity} ${violation.ruleName}: ${violation.violatingResources.map((resource) => resource.constructPath).join(', ')}`,
    );
    expect(findings).toEqual([]);
    expect(result.report.success).toBe(true);
  });

  it('acknowledges only findings that exist, each with a reason a reviewer can check', () => {
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const acknowledgement of acknowledgements) {
      expect(acknowledgement.id).toMatch(/^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      expect(acknowledgement.reason.length).toBeGreaterThan(80);
      expect(result.used).toContain(`${acknowledgement.path} ${acknowledgement.id}`);
    }
  });

  it('acknowledges only these rules', () => {
    const scheduleGroup = synthesized.dataStack.scheduleGroupName;
    // With a concrete region CDK writes the region's partition literally (cdk.json's enablePartitionLiterals);
    // without one all three stay pseudo parameters, which cdk-nag spells <AWS::...>.
    const literalPartitions = new Map([['cn-north-1', 'aws-cn'], ['us-gov-west-1', 'aws-us-gov'], ['ap-southeast-2', 'aws'], ['us-east-1', 'aws']]);
    const region = env?.region ?? '<AWS::Region>';
    const partition = (env?.region && literalPartitions.get(env.region)) ?? '<AWS::Partition>';
    const account = env?.account ?? '<AWS::AccountId>';
    expect([...new Set(acknowledgements.map((acknowledgement) => acknowledgement.id))].sort()).toEqual([
      'AwsSolutions-APIG2',
      'AwsSolutions-APIG4',
      'AwsSolutions-COG4',
      'AwsSolutions-IAM5[Resource::*]',
      `AwsSolutions-IAM5[Resource::arn:${partition}:scheduler:${region}:${account}:schedule/${scheduleGroup}/*]`,
      'AwsSolutions-SMG4',
    ]);
  });
  },
);
