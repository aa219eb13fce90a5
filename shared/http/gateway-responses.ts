// HTTP conventions: the problem responses API Gateway sends by itself (before or instead of a function). The CDK
// stack installs them as gateway responses and the local gateway answers with the same ones.
import { bearerChallenge, problemKinds, type ProblemKind } from '../errors';
import { failureOutcome } from './failure-outcome';

/** API Gateway's GatewayResponseType names (a subset of aws-cdk-lib's ResponseType, kept free of CDK imports). */
export type GatewayResponseType =
  | 'UNAUTHORIZED'
  | 'ACCESS_DENIED'
  | 'MISSING_AUTHENTICATION_TOKEN'
  | 'RESOURCE_NOT_FOUND'
  | 'REQUEST_TOO_LARGE'
  | 'THROTTLED'
  | 'QUOTA_EXCEEDED'
  | 'BAD_REQUEST_BODY'
  | 'BAD_REQUEST_PARAMETERS'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'INTEGRATION_FAILURE'
  | 'INTEGRATION_TIMEOUT'
  | 'AUTHORIZER_FAILURE'
  | 'AUTHORIZER_CONFIGURATION_ERROR'
  | 'WAF_FILTERED'
  | 'DEFAULT_4XX'
  | 'DEFAULT_5XX';

export interface GatewayResponseDefinition {
  readonly type: GatewayResponseType;
  readonly kind: ProblemKind;
  readonly detail: string;
  /** Headers this response adds to the shared ones (static values: no single quotes). */
  readonly headers?: Readonly<Record<string, string>>;
}

export const gatewayResponses: readonly GatewayResponseDefinition[] = [
  { type: 'UNAUTHORIZED', kind: problemKinds.unauthorized, detail: 'A valid bearer token is required.', headers: bearerChallenge },
  { type: 'ACCESS_DENIED', kind: problemKinds.forbidden, detail: 'The token does not allow this request.' },
  // API Gateway answers an unknown path or method with MISSING_AUTHENTICATION_TOKEN (403 by default).
  { type: 'MISSING_AUTHENTICATION_TOKEN', kind: problemKinds.notFound, detail: 'No operation at this path and method.' },
  { type: 'RESOURCE_NOT_FOUND', kind: problemKinds.notFound, detail: 'No operation at this path and method.' },
  { type: 'REQUEST_TOO_LARGE', kind: problemKinds.payloadTooLarge, detail: 'The request exceeds the gateway limit of 10 MB.' },
  { type: 'THROTTLED', kind: problemKinds.tooManyRequests, detail: 'Too many requests; retry later.' },
  { type: 'QUOTA_EXCEEDED', kind: problemKinds.tooManyRequests, detail: 'The usage quota is exhausted.' },
  { type: 'BAD_REQUEST_BODY', kind: problemKinds.badRequest, detail: 'The request body is not valid.' },
  { type: 'BAD_REQUEST_PARAMETERS', kind: problemKinds.badRequest, detail: 'A request parameter is missing or not valid.' },
  { type: 'UNSUPPORTED_MEDIA_TYPE', kind: problemKinds.unsupportedMediaType, detail: 'This media type is not accepted.' },
  { type: 'INTEGRATION_FAILURE', kind: problemKinds.badGateway, detail: 'The operation failed to answer.' },
  { type: 'INTEGRATION_TIMEOUT', kind: problemKinds.gatewayTimeout, detail: 'The operation did not answer in time.' },
  { type: 'AUTHORIZER_FAILURE', kind: problemKinds.internal, detail: 'The request could not be authorised.' },
  { type: 'AUTHORIZER_CONFIGURATION_ERROR', kind: problemKinds.internal, detail: 'The request could not be authorised.' },
  { type: 'WAF_FILTERED', kind: problemKinds.forbidden, detail: 'The request was blocked.' },
  { type: 'DEFAULT_4XX', kind: problemKinds.badRequest, detail: 'The request was refused by the gateway.' },
  { type: 'DEFAULT_5XX', kind: problemKinds.internal, detail: 'The gateway failed to handle the request.' },
];

/** Body template: API Gateway substitutes `$context.requestId`; the local gateway does the same. */
export const gatewayProblemTemplate = (definition: GatewayResponseDefinition): string =>
  JSON.stringify({
    type: definition.kind.type,
    title: definition.kind.title,
    status: definition.kind.status,
    detail: definition.detail,
    instance: '$context.requestId',
    ...failureOutcome(definition.kind.status, definition.detail),
  });

export const gatewayResponse = (type: GatewayResponseType): GatewayResponseDefinition => {
  const found = gatewayResponses.find((definition) => definition.type === type);
  if (!found) throw new Error(`No gateway response of type ${type}`);
  return found;
};
