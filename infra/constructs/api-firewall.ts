// Infra: the web ACL in front of the API stage. It drops known-bad traffic and floods from one address before
// they cost a function invocation; authentication and validation stay in the authorizer and the functions.
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';

export interface ApiFirewallProps {
  readonly stage: Stage;
  /**
   * Requests one client IP may send in any 5 minutes before WAF blocks it (403, the WAF_FILTERED problem).
   * 3000 is ten per second sustained: far above one user, below a scripted flood. Raise it if the document
   * provider's webhook traffic, which comes from few addresses, ever approaches it.
   */
  readonly requestsPerIpPer5Minutes?: number;
}

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

const managedRuleGroup = (
  priority: number,
  name: string,
  ruleActionOverrides?: CfnWebACL.RuleActionOverrideProperty[],
): CfnWebACL.RuleProperty => ({
  name: `Aws-${name}`,
  priority,
  overrideAction: { none: {} },
  statement: {
    managedRuleGroupStatement: {
      vendorName: 'AWS',
      name,
      ...(ruleActionOverrides ? { ruleActionOverrides } : {}),
    },
  },
  visibilityConfig: visibility(name),
});

export class ApiFirewall extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiFirewallProps) {
    super(scope, id);

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('BusinessPlatformApi'),
      rules: [
        {
          name: 'RequestsPerIp',
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              limit: props.requestsPerIpPer5Minutes ?? 3000,
              aggregateKeyType: 'IP',
              evaluationWindowSec: 300,
            },
          },
          visibilityConfig: visibility('RequestsPerIp'),
        },
        managedRuleGroup(1, 'AWSManagedRulesAmazonIpReputationList'),
        // SizeRestrictions_BODY blocks bodies over 8 KB; a delivery receipt with many lines or a payment with its
        // allocations is legitimately larger. It only counts: API Gateway caps bodies at 10 MB and the functions
        // validate every field, so nothing relies on WAF for size.
        managedRuleGroup(2, 'AWSManagedRulesCommonRuleSet', [
          { name: 'SizeRestrictions_BODY', actionToUse: { count: {} } },
        ]),
        managedRuleGroup(3, 'AWSManagedRulesKnownBadInputsRuleSet'),
      ],
    });

    new CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
