// Infra: the REST API, built from the operations manifest. Each manifest route becomes one method on one function;
// the gateway's own refusals (no route, bad token, throttled, ...) answer with the shared problem responses.
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { gatewayResponseSettings, gatewayResponses } from '#shared/http/gateway-responses';
import { readRequestMediaTypes } from '#shared/http/media';
import { resourceOf, stageName, type Operation } from '#shared/operations/index';

export interface OperationsApiProps {
  readonly operations: readonly Operation[];
  /** The function of each operation, by operationId. */
  readonly functions: ReadonlyMap<string, IFunction>;
  readonly authorizerFunction: IFunction;
  /** Steady requests per second the stage accepts before answering 429; protects the table and the account. */
  readonly throttlingRateLimit?: number;
  /** Requests the stage accepts in a burst above the steady rate. */
  readonly throttlingBurstLimit?: number;
  readonly logRemovalPolicy?: RemovalPolicy;
}

/** `/v2/DeliveryReceipt/` -> `v2/DeliveryReceipt`: API Gateway matches a resource with or without the slash. */
const resourcePathOf = (manifestPath: string): string => resourceOf(manifestPath).replace(/^\/+/, '');

/**
 * One JSON line per request. Only ids, status and timings: no headers (so never Authorization), no bodies, no
 * query strings (resourcePath is the route template, not the path as sent).
 */
const accessLogFormat = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    ip: AccessLogField.contextIdentitySourceIp(),
    caller: AccessLogField.contextIdentityCaller(),
    user: AccessLogField.contextIdentityUser(),
    principalId: AccessLogField.contextAuthorizerPrincipalId(),
    requestTime: AccessLogField.contextRequestTime(),
    httpMethod: AccessLogField.contextHttpMethod(),
    resourcePath: AccessLogField.contextResourcePath(),
    status: AccessLogField.contextStatus(),
    protocol: AccessLogField.contextProtocol(),
    responseLength: AccessLogField.contextResponseLength(),
    integrationLatency: AccessLogField.contextIntegrationLatency(),
    responseLatency: AccessLogField.contextResponseLatency(),
    errorType: AccessLogField.contextErrorResponseType(),
    authorizerError: AccessLogField.contextAuthorizerError(),
    wafStatus: AccessLogField.contextWafStatus(),
    xrayTraceId: AccessLogField.contextXrayTraceId(),
  }),
);

export class OperationsApi extends Construct {
  readonly api: RestApi;
  readonly authorizer: RequestAuthorizer;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: OperationsApiProps) {
    super(scope, id);

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.DESTROY,
    });

    this.api = new RestApi(this, 'RestApi', {
      restApiName: 'business-platform-api',
      description: 'Business-management platform HTTP API (routes from shared/operations/)',
      // Regional: clients and the document provider call it directly; WAF sits on the stage, not on CloudFront.
      endpointTypes: [EndpointType.REGIONAL],
      // The account-wide CloudWatch role is set once per account and region, outside this stack (see README).
      cloudWatchRole: false,
      // Every media type an operation reads is "binary": API Gateway then hands such a body over base64-encoded with
      // the bytes the client sent, and the function decodes it strictly (invalid UTF-8 is a 400). Declared as text,
      // the gateway decoded it itself and turned bytes that are not UTF-8 into U+FFFD, which the function could not
      // tell from a client's own U+FFFD. Responses are unaffected: a Lambda proxy result with isBase64Encoded false
      // is passed through as text.
      binaryMediaTypes: [...readRequestMediaTypes],
      deployOptions: {
        stageName,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat,
        throttlingRateLimit: props.throttlingRateLimit ?? 100,
        throttlingBurstLimit: props.throttlingBurstLimit ?? 200,
        metricsEnabled: true,
        tracingEnabled: true,
        // ERROR only, and never data trace: execution logs at INFO or with data trace copy request headers and
        // bodies (tokens, card data) into CloudWatch.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
      },
    });

    // REQUEST authorizer keyed on the Authorization header: API Gateway answers 401 itself when it is missing,
    // and caches each token's policy for five minutes, so a client's burst costs one verification. The cache ignores
    // the token's exp: the context carries it and every function refuses an expired token (shared/http/README.md).
    this.authorizer = new RequestAuthorizer(this, 'BearerAuthorizer', {
      authorizerName: 'bearer-token',
      handler: props.authorizerFunction,
      identitySources: [IdentitySource.header('Authorization')],
      resultsCacheTtl: Duration.minutes(5),
    });

    for (const operation of props.operations) {
      const operationFunction = props.functions.get(operation.operationId);
      if (!operationFunction) throw new Error(`No function for operation ${operation.operationId}`);
      const path = resourcePathOf(operation.path);
      const resource: IResource = path === '' ? this.api.root : this.api.root.resourceForPath(path);
      const integration = new LambdaIntegration(operationFunction, {
        // The console's test button needs a second invoke permission; nobody tests from the console.
        allowTestInvoke: false,
      });
      const method = resource.addMethod(
        operation.method,
        integration,
        operation.auth === 'bearer'
          ? { operationName: operation.operationId, authorizationType: AuthorizationType.CUSTOM, authorizer: this.authorizer }
          : { operationName: operation.operationId, authorizationType: AuthorizationType.NONE },
      );
      if (operation.auth === 'webhook-signature') {
        Validations.of(method).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason:
            `${operation.operationId} is called by the document-analysis provider, which cannot obtain our bearer ` +
            'tokens. Its function verifies the HMAC signature of each event before acting on it and answers 401 ' +
            'otherwise; API Gateway still applies the stage throttle and the web ACL.',
        });
      }
    }

    for (const definition of gatewayResponses) {
      const { type, statusCode, templates, responseHeaders } = gatewayResponseSettings(definition);
      this.api.addGatewayResponse(`Gateway${type}`, { type: ResponseType.of(type), statusCode, templates, responseHeaders });
    }

    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        'Bearer tokens come from the platform\'s OIDC provider (configured by issuer and JWKS URL), not from a ' +
        'Cognito user pool; the Lambda REQUEST authorizer verifies signature, issuer, audience and expiry of every ' +
        'token. The one method without it (the provider webhook) is authenticated by signature.',
    });
    Validations.of(this.api).acknowledge({
      id: 'AwsSolutions-APIG2',
      reason:
        'Every request is validated in its function by validators ajv generated at build time from this API\'s own ' +
        'OpenAPI document (shared/compiled/requests/), and answered with a field-level problem. API Gateway models ' +
        'would be a second, drifting copy that also cannot read the XML and form bodies accepted.',
    });
  }
}
