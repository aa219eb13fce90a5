// Infra tests: the REST API matches the manifest (routes, auth), answers its own refusals with the shared problem
// responses, logs every request without secrets, throttles, and sits behind the web ACL.
import { Match } from 'aws-cdk-lib/assertions';
import { gatewayProblemTemplate, gatewayResponses } from '#shared/http/gateway-responses';
import { headerOrderRepeatPattern, onceOnlyHeaders, repeatedHeaderDetail } from '#shared/http/header-lines';
import { securityHeaders } from '#shared/http/headers';
import { readRequestMediaTypes, requestMediaTypes } from '#shared/http/media';
import { gatewayContentSecurityPolicy } from '#shared/http/headers';
import { largestRequestBodyBytes, operations, stageName } from '#shared/operations/index';
import { decimalAbovePattern } from '#shared/http/body-limit';
import { webhookSigningPath } from '#infra/local/webhook-signing';
import { localWebhookSecret } from '#shared/schemas/webhook-signature';
import { logicalIdOf, resourcesOfType, synthesize, type CfnTemplate, type Synthesized } from './synthesize';

let synthesized: Synthesized;
let template: CfnTemplate;

beforeAll(() => {
  synthesized = synthesize();
  template = synthesized.apiJson;
});
afterAll(() => synthesized.cleanUp());

const restApiId = () => logicalIdOf(synthesized.apiStack.operationsApi.api);

/** Full path of every API Gateway resource, by logical id, rebuilt from PathPart and ParentId. */
const resourcePaths = (): Map<string, string> => {
  const resources = new Map(resourcesOfType(template, 'AWS::ApiGateway::Resource'));
  const pathOf = (logicalId: string): string => {
    const properties = resources.get(logicalId)!.Properties as { PathPart: string; ParentId: { Ref?: string } };
    const parent = properties.ParentId.Ref;
    return `${parent && resources.has(parent) ? pathOf(parent) : ''}/${properties.PathPart}`;
  };
  return new Map([...resources.keys()].map((logicalId) => [logicalId, pathOf(logicalId)]));
};

/** Every method as `METHOD /path`, with its properties. */
const methods = (): Map<string, Record<string, any>> => {
  const paths = resourcePaths();
  return new Map(
    resourcesOfType(template, 'AWS::ApiGateway::Method').map(([, method]) => {
      const properties = method.Properties as Record<string, any>;
      const resourceRef = properties.ResourceId.Ref as string | undefined;
      const path = resourceRef && paths.has(resourceRef) ? paths.get(resourceRef)! : '/';
      return [`${properties.HttpMethod} ${path}`, properties];
    }),
  );
};

describe('REST API', () => {
  it('deploys one stage named after the manifest, so the base URL ends in /api', () => {
    expect(stageName).toBe('api');
    synthesized.api.resourceCountIs('AWS::ApiGateway::Stage', 1);
    synthesized.api.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: stageName });
    synthesized.api.hasResourceProperties('AWS::ApiGateway::RestApi', {
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
  });

  it('has exactly the manifest routes (trailing slash dropped), no more', () => {
    const expected = operations.map((operation) => `${operation.method} ${operation.path.replace(/\/+$/, '')}`);
    expect([...methods().keys()].sort()).toEqual(expected.sort());
  });

  it("serves neither the reference page nor the local stack's webhook signer: no such route, no trace of them or the development secret in any template", () => {
    expect([...methods().keys()].filter((route) => /docs|openapi|sign-webhook/i.test(route))).toEqual([]);
    for (const [name, json] of [['api', synthesized.apiJson], ['data', synthesized.dataJson]] as const) {
      const text = JSON.stringify(json);
      for (const trace of [webhookSigningPath, 'sign-webhook', 'requestInterceptor', 'swagger', localWebhookSecret]) {
        expect([name, trace, text.includes(trace)]).toEqual([name, trace, false]);
      }
    }
  });

  it.each(operations.map((operation) => [operation.operationId, operation] as const))(
    '%s uses the authorizer unless signed by the provider, and calls its own function',
    (operationId, operation) => {
      const method = methods().get(`${operation.method} ${operation.path.replace(/\/+$/, '')}`)!;
      expect(method.OperationName).toBe(operationId);
      if (operation.auth === 'bearer') {
        expect(method.AuthorizationType).toBe('CUSTOM');
        expect(method.AuthorizerId).toEqual({ Ref: logicalIdOf(synthesized.apiStack.operationsApi.authorizer) });
      } else {
        expect(method.AuthorizationType).toBe('NONE');
        expect(method.AuthorizerId).toBeUndefined();
      }
      expect(method.Integration.Type).toBe('AWS_PROXY');
      const functionId = logicalIdOf(synthesized.apiStack.operationFunctions.get(operationId)!.function);
      expect(JSON.stringify(method.Integration.Uri)).toContain(`"${functionId}"`);
    },
  );

  it('declares every request media type an operation reads binary, and nothing else: such bodies reach functions as the bytes sent', () => {
    const restApis = resourcesOfType(template, 'AWS::ApiGateway::RestApi');
    expect(restApis).toHaveLength(1);
    const declared = (restApis[0]![1].Properties as { BinaryMediaTypes?: string[] }).BinaryMediaTypes ?? [];
    // Written plainly (the CDK passes them as they are; `~1` is SAM's form), each once.
    expect([...declared].sort()).toEqual(
      [...new Set(Object.values(requestMediaTypes).flatMap((family) => Object.keys(family)))].sort(),
    );
    expect(declared).toEqual([...readRequestMediaTypes]);
    expect(declared).toEqual(expect.arrayContaining(['application/json', 'application/xml', 'text/xml', 'application/x-www-form-urlencoded']));
  });

  it('authorizes with a REQUEST authorizer on the Authorization header, cached five minutes', () => {
    synthesized.api.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
    synthesized.api.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 300,
      AuthorizerUri: Match.anyValue(),
    });
  });

  it('declares the authorizer settings as parameters when no context gives them; issuer and JWKS URL without default', () => {
    // No Default: `cdk deploy` without them fails before any change ("Parameters: [...] must have values") instead
    // of deploying an authorizer that answers 500. Neither may be given empty either.
    expect(template.Parameters?.AuthIssuer).toEqual({
      Type: 'String',
      MinLength: 1,
      Description: expect.any(String),
    });
    expect(template.Parameters?.AuthJwksUrl).toEqual({
      Type: 'String',
      AllowedPattern: '^https://\\S+$',
      ConstraintDescription: 'must be an https:// URL',
      Description: expect.any(String),
    });
    const jwksPattern = new RegExp(template.Parameters!.AuthJwksUrl!.AllowedPattern as string);
    expect(jwksPattern.test('https://issuer.example.com/.well-known/jwks.json')).toBe(true);
    for (const refused of ['', 'http://issuer.example.com/jwks', 'https://']) expect(jwksPattern.test(refused)).toBe(false);
    // The audience may stay empty (no aud check).
    expect(template.Parameters?.AuthAudience).toMatchObject({ Type: 'String', Default: '' });
  });
});

describe('gateway responses', () => {
  it('installs every shared gateway response, and only those', () => {
    synthesized.api.resourceCountIs('AWS::ApiGateway::GatewayResponse', gatewayResponses.length);
  });

  it.each(gatewayResponses.map((definition) => [definition.type, definition] as const))(
    '%s answers its status with a problem body, the security headers and the request id',
    (type, definition) => {
      synthesized.api.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        RestApiId: { Ref: restApiId() },
        ResponseType: type,
        StatusCode: String(definition.kind.status),
        ResponseTemplates: { 'application/problem+json': gatewayProblemTemplate(definition) },
        ResponseParameters: {
          ...Object.fromEntries(
            Object.entries({ ...securityHeaders, 'Content-Security-Policy': gatewayContentSecurityPolicy }).map(
              ([name, value]) => [`gatewayresponse.header.${name}`, `'${value}'`],
            ),
          ),
          'gatewayresponse.header.Content-Type': "'application/problem+json'",
          'gatewayresponse.header.X-Request-Id': 'context.requestId',
          ...Object.fromEntries(Object.entries(definition.headers ?? {}).map(([name, value]) => [`gatewayresponse.header.${name}`, `'${value}'`])),
        },
      });
    },
  );
});

describe('gateway response header values', () => {
  it('are single-quoted literals with no quote inside (API Gateway documents no escape), or a mapping expression', () => {
    for (const [, response] of resourcesOfType(template, 'AWS::ApiGateway::GatewayResponse')) {
      for (const value of Object.values(response.Properties!.ResponseParameters as Record<string, string>)) {
        expect(value).toMatch(/^('[^']*'|context\.[A-Za-z.]+)$/);
      }
    }
  });

  it('use a quote-free Content-Security-Policy as strict as the functions\' one for a problem body', () => {
    // The functions' value needs quoted keywords ('none'); the gateway's stays quote-free and framing is still
    // refused by X-Frame-Options.
    expect(securityHeaders['Content-Security-Policy']).toContain("'none'");
    expect(gatewayContentSecurityPolicy).toBe('sandbox');
    expect(securityHeaders['X-Frame-Options']).toBe('DENY');
  });
});

describe('stage settings', () => {
  const stage = () => resourcesOfType(template, 'AWS::ApiGateway::Stage')[0]![1].Properties as Record<string, any>;

  it('writes a JSON access log line per request, to its own log group, without headers', () => {
    const { AccessLogSetting } = stage();
    expect(AccessLogSetting.DestinationArn).toEqual({
      'Fn::GetAtt': [logicalIdOf(synthesized.apiStack.operationsApi.accessLogs), 'Arn'],
    });
    const format = JSON.parse(AccessLogSetting.Format as string) as Record<string, string>;
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      caller: '$context.identity.caller',
      user: '$context.identity.user',
      requestTime: '$context.requestTime',
      httpMethod: '$context.httpMethod',
      resourcePath: '$context.resourcePath',
      status: '$context.status',
      protocol: '$context.protocol',
      responseLength: '$context.responseLength',
      integrationLatency: '$context.integrationLatency',
    });
    expect(AccessLogSetting.Format).not.toMatch(/header|authorization|\$input|requestOverride/i);
    expect(template.Resources[logicalIdOf(synthesized.apiStack.operationsApi.accessLogs)]!.Properties).toEqual({
      RetentionInDays: 30,
    });
  });

  it('throttles, records method metrics and traces, logs only errors and never request data', () => {
    expect(stage().TracingEnabled).toBe(true);
    expect(stage().MethodSettings).toEqual([
      {
        HttpMethod: '*',
        ResourcePath: '/*',
        ThrottlingRateLimit: 100,
        ThrottlingBurstLimit: 200,
        MetricsEnabled: true,
        LoggingLevel: 'ERROR',
        DataTraceEnabled: false,
      },
    ]);
  });
});

describe('web ACL', () => {
  it('guards the stage with a rate limit per IP and the AWS managed rule groups', () => {
    synthesized.api.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: Match.arrayWith([
        Match.objectLike({
          Name: 'RequestsPerIp',
          Action: { Block: {} },
          Statement: { RateBasedStatement: { Limit: 3000, AggregateKeyType: 'IP', EvaluationWindowSec: 300 } },
        }),
        Match.objectLike({
          Statement: {
            ManagedRuleGroupStatement: Match.objectLike({ VendorName: 'AWS', Name: 'AWSManagedRulesCommonRuleSet' }),
          },
        }),
        Match.objectLike({
          Statement: {
            ManagedRuleGroupStatement: Match.objectLike({ VendorName: 'AWS', Name: 'AWSManagedRulesKnownBadInputsRuleSet' }),
          },
        }),
      ]),
    });
    const stageId = logicalIdOf(synthesized.apiStack.operationsApi.api.deploymentStage);
    const association = resourcesOfType(template, 'AWS::WAFv2::WebACLAssociation');
    expect(association).toHaveLength(1);
    const arn = JSON.stringify(association[0]![1].Properties!.ResourceArn);
    expect(arn).toContain(`"${restApiId()}"`);
    expect(arn).toContain(`"${stageId}"`);
  });

  it('refuses a once-only header on two lines (issue 14) before routing and the authorizer: 400 with the problem naming it', () => {
    const acls = resourcesOfType(template, 'AWS::WAFv2::WebACL');
    expect(acls).toHaveLength(1);
    const properties = acls[0]![1].Properties as Record<string, any>;
    const rules = properties.Rules as Record<string, any>[];
    const bodies = properties.CustomResponseBodies as Record<string, { ContentType: string; Content: string }>;
    for (const header of onceOnlyHeaders) {
      const rule = rules.find((candidate) => candidate.Name === `RepeatedHeader-${header}`);
      expect(rule).toMatchObject({
        Action: { Block: { CustomResponse: { ResponseCode: 400, CustomResponseBodyKey: `RepeatedHeader-${header}` } } },
        Statement: {
          RegexMatchStatement: {
            FieldToMatch: { HeaderOrder: { OversizeHandling: 'CONTINUE' } },
            RegexString: headerOrderRepeatPattern(header),
            TextTransformations: [{ Priority: 0, Type: 'LOWERCASE' }],
          },
        },
      });
      const detail = repeatedHeaderDetail(header);
      expect(bodies[`RepeatedHeader-${header}`]?.ContentType).toBe('APPLICATION_JSON');
      expect(JSON.parse(bodies[`RepeatedHeader-${header}`]!.Content)).toEqual({
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail,
        IsSuccess: false,
        Messages: [detail],
        ErrorCode: 400,
      });
    }
    expect(new Set(rules.map((rule) => rule.Priority)).size).toBe(rules.length);
  });

  it('refuses a Content-Length above the most any operation reads before API Gateway invokes anything: the functions\' 413', () => {
    const properties = resourcesOfType(template, 'AWS::WAFv2::WebACL')[0]![1].Properties as Record<string, any>;
    const rule = (properties.Rules as Record<string, any>[]).find((candidate) => candidate.Name === 'BodyTooLarge');
    expect(rule).toMatchObject({
      Action: { Block: { CustomResponse: { ResponseCode: 413, CustomResponseBodyKey: 'BodyTooLarge' } } },
      Statement: {
        RegexMatchStatement: {
          FieldToMatch: { SingleHeader: { Name: 'content-length' } },
          RegexString: decimalAbovePattern(largestRequestBodyBytes),
          TextTransformations: [{ Priority: 0, Type: 'NONE' }],
        },
      },
    });
    // The regex WAF runs is the one the unit tests hold to the numbers: the limit itself passes, one byte more is blocked.
    const pattern = new RegExp(rule!.Statement.RegexMatchStatement.RegexString as string);
    expect([String(largestRequestBodyBytes), String(largestRequestBodyBytes + 1)].map((length) => pattern.test(length))).toEqual([false, true]);
    const detail = `The request body exceeds ${largestRequestBodyBytes} bytes.`;
    const body = (properties.CustomResponseBodies as Record<string, { ContentType: string; Content: string }>).BodyTooLarge;
    expect(body?.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body!.Content)).toEqual({ type: 'about:blank', title: 'Content Too Large', status: 413, detail, IsSuccess: false, Messages: [detail], ErrorCode: 413 });
  });
});
