// Infra: the web ACL in front of the API stage. It drops known-bad traffic and floods from one address before
// they cost a function invocation, and refuses a once-only header sent on several lines before API Gateway routes the
// request or runs the authorizer (issue 14); authentication and validation stay in the authorizer and the functions.
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import { PayloadTooLarge, problemKinds, type ProblemKind } from '#shared/errors';
import { decimalAbovePattern } from '#shared/http/body-limit';
import { failureOutcome } from '#shared/http/failure-outcome';
import { headerOrderRepeatPattern, onceOnlyHeaders, repeatedHeaderDetail, type OnceOnlyHeader } from '#shared/http/header-lines';
import { gatewaySecurityHeaders } from '#shared/http/headers';
import { largestRequestBodyBytes } from '#shared/operations/index';

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

const repeatedHeaderBodyKey = (header: OnceOnlyHeader) => `RepeatedHeader-${header}`;

/**
 * The problem the functions and the local gateway answer for a repeated once-only header, as a static body: a WAF
 * response body cannot carry the request id (`instance`), and WAF sets its Content-Type (application/json).
 */
const repeatedHeaderBody = (header: OnceOnlyHeader): CfnWebACL.CustomResponseBodyProperty => staticProblem(problemKinds.badRequest, repeatedHeaderDetail(header));

/** A problem as a static WAF response body (no `instance`: WAF cannot write the request id). */
const staticProblem = ({ status, title, type }: ProblemKind, detail: string): CfnWebACL.CustomResponseBodyProperty => ({
  contentType: 'APPLICATION_JSON',
  content: JSON.stringify({ type, title, status, detail, ...failureOutcome(status, detail) }),
});

/** Blocks with `status` and a custom response body (one of the ACL's `customResponseBodies`), the gateway security headers. */
const blockWith = (status: number, bodyKey: string): CfnWebACL.RuleActionProperty => ({
  block: {
    customResponse: {
      responseCode: status,
      customResponseBodyKey: bodyKey,
      responseHeaders: Object.entries(gatewaySecurityHeaders).map(([name, value]) => ({ name, value })),
    },
  },
});

const bodyTooLargeKey = 'BodyTooLarge';
const bodyTooLargeProblem = new PayloadTooLarge(largestRequestBodyBytes);

/**
 * Blocks, with the functions' own 413, a request whose Content-Length names more bytes than any operation reads
 * (shared/http/body-limit.ts): before API Gateway turns it into a Lambda event too large to invoke with (its 502),
 * and before it costs an invocation. A body sent without a Content-Length is bounded by the functions (413).
 */
const bodyTooLargeRule = (priority: number): CfnWebACL.RuleProperty => ({
  name: bodyTooLargeKey,
  priority,
  action: blockWith(bodyTooLargeProblem.kind.status, bodyTooLargeKey),
  statement: {
    regexMatchStatement: {
      fieldToMatch: { singleHeader: { Name: 'content-length' } },
      regexString: decimalAbovePattern(largestRequestBodyBytes),
      textTransformations: [{ priority: 0, type: 'NONE' }],
    },
  },
  visibilityConfig: visibility(bodyTooLargeKey),
});

/**
 * One rule per once-only header (`shared/http/header-lines.ts`): blocks, with a 400 problem naming the header, a
 * request whose header names (WAF's HeaderOrder, lower-cased) name it twice. Runs before API Gateway routes or calls
 * the authorizer, so neither the authorizer nor its cache ever sees an ambiguous Authorization. The functions and
 * the authorizer refuse the same requests again, should a request reach them (more than 200 headers or 8 KB of
 * them are not inspected by WAF: CONTINUE inspects what it has).
 */
const repeatedHeaderRule = (priority: number, header: OnceOnlyHeader): CfnWebACL.RuleProperty => ({
  name: `RepeatedHeader-${header}`,
  priority,
  action: blockWith(problemKinds.badRequest.status, repeatedHeaderBodyKey(header)),
  statement: {
    regexMatchStatement: {
      fieldToMatch: { headerOrder: { oversizeHandling: 'CONTINUE' } },
      regexString: headerOrderRepeatPattern(header),
      textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
    },
  },
  visibilityConfig: visibility(`RepeatedHeader${header.replaceAll('-', '')}`),
});

export class ApiFirewall extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: ApiFirewallProps) {
    super(scope, id);

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('BusinessPlatformApi'),
      customResponseBodies: {
        ...Object.fromEntries(onceOnlyHeaders.map((header) => [repeatedHeaderBodyKey(header), repeatedHeaderBody(header)])),
        [bodyTooLargeKey]: staticProblem(bodyTooLargeProblem.kind, bodyTooLargeProblem.detail),
      },
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
        ...onceOnlyHeaders.map((header, index) => repeatedHeaderRule(4 + index, header)),
        bodyTooLargeRule(4 + onceOnlyHeaders.length),
      ],
    });

    new CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.stage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
