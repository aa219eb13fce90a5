// Local stack: the responses API Gateway makes by itself (before or instead of a function), as the API stack's
// template declares them (AWS::ApiGateway::GatewayResponse: ResponseType, StatusCode, ResponseParameters,
// ResponseTemplates), rendered as API Gateway renders them: `$context.<variable>` substituted in the body template,
// a header mapping either a 'literal' or `context.<variable>`, and a type the API does not define answered by its
// DEFAULT_4XX or DEFAULT_5XX response (by the type's default status), else by API Gateway's own default.
import { gatewayResponses as sharedGatewayResponses, gatewayResponseSettings, type GatewayResponseType } from '#shared/http/gateway-responses';
import { resourcesOfType, type AssemblyStack } from './template';

/** One gateway response as API Gateway is given it: what the template declares, or the shared definitions. */
export interface GatewayResponseSpec {
  /** Absent: the type's default status. */
  readonly statusCode?: string;
  /** Header name -> mapping expression (`'literal'` or `context.<variable>`). */
  readonly headers: Readonly<Record<string, string>>;
  /** Media type -> body template. */
  readonly templates: Readonly<Record<string, string>>;
}

export type GatewayResponseSet = ReadonlyMap<string, GatewayResponseSpec>;

/** API Gateway's default status of each response type (DEFAULT_4XX and DEFAULT_5XX have none of their own). */
const defaultStatus: Readonly<Record<GatewayResponseType, number>> = {
  UNAUTHORIZED: 401,
  ACCESS_DENIED: 403,
  MISSING_AUTHENTICATION_TOKEN: 403,
  RESOURCE_NOT_FOUND: 404,
  REQUEST_TOO_LARGE: 413,
  THROTTLED: 429,
  QUOTA_EXCEEDED: 429,
  BAD_REQUEST_BODY: 400,
  BAD_REQUEST_PARAMETERS: 400,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTEGRATION_FAILURE: 504,
  INTEGRATION_TIMEOUT: 504,
  AUTHORIZER_FAILURE: 500,
  AUTHORIZER_CONFIGURATION_ERROR: 500,
  WAF_FILTERED: 403,
  DEFAULT_4XX: 400,
  DEFAULT_5XX: 500,
};

/** API Gateway's own message when no gateway response of the type (nor its default) is defined. */
const builtInMessage = (status: number): string =>
  status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : status === 413 ? 'Request Too Long' : status === 429 ? 'Too Many Requests' : status >= 500 ? 'Internal server error' : 'Bad Request';

const headerPrefix = 'gatewayresponse.header.';

/** The gateway responses of the API stack's REST API, by ResponseType. */
export const gatewayResponsesFromTemplate = (api: AssemblyStack): Map<string, GatewayResponseSpec> => {
  const responses = new Map<string, GatewayResponseSpec>();
  for (const [logicalId, resource] of resourcesOfType(api.template, 'AWS::ApiGateway::GatewayResponse')) {
    const properties = resource.Properties ?? {};
    const type = properties.ResponseType;
    if (typeof type !== 'string') throw new Error(`${api.stackName} ${logicalId}: a gateway response without a ResponseType`);
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries((properties.ResponseParameters ?? {}) as Record<string, unknown>)) {
      if (!key.startsWith(headerPrefix) || typeof value !== 'string') {
        throw new Error(`${api.stackName} ${logicalId}: response parameter ${key} is not a header mapping the local gateway renders`);
      }
      headers[key.slice(headerPrefix.length)] = value;
    }
    const templates = Object.fromEntries(
      Object.entries((properties.ResponseTemplates ?? {}) as Record<string, unknown>).map(([mediaType, template]) => [mediaType, String(template)]),
    );
    responses.set(type, { ...(properties.StatusCode === undefined ? {} : { statusCode: String(properties.StatusCode) }), headers, templates });
  }
  return responses;
};

/** The shared definitions' responses, as the CDK stack installs them: for a gateway started without a template. */
export const sharedGatewayResponseSet = (): Map<string, GatewayResponseSpec> =>
  new Map(
    sharedGatewayResponses.map((definition) => {
      const { type, statusCode, templates, responseHeaders } = gatewayResponseSettings(definition);
      return [type, { statusCode, headers: responseHeaders, templates }];
    }),
  );

/** The `$context` variables a gateway response may use, as API Gateway fills them for a request it refuses. */
export interface GatewayResponseContext {
  readonly requestId: string;
  readonly extendedRequestId?: string;
  readonly httpMethod?: string;
  readonly path?: string;
  readonly resourcePath?: string;
  readonly stage?: string;
  readonly responseType: string;
  readonly message: string;
}

const contextVariables = (context: GatewayResponseContext): Map<string, string> =>
  new Map([
    ['requestId', context.requestId],
    ['extendedRequestId', context.extendedRequestId ?? context.requestId],
    ['httpMethod', context.httpMethod ?? ''],
    ['path', context.path ?? ''],
    ['resourcePath', context.resourcePath ?? ''],
    ['stage', context.stage ?? ''],
    ['accountId', '123456789012'],
    ['error.responseType', context.responseType],
    ['error.message', context.message],
    ['error.messageString', JSON.stringify(context.message)],
  ]);

/** `$context.x.y` (or `${context.x.y}`) in a body template; a variable API Gateway would not fill renders empty. */
const substituteTemplate = (template: string, variables: Map<string, string>): string =>
  template.replace(/\$\{context\.([A-Za-z0-9_.]+)\}|\$context\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)/g, (_, braced?: string, bare?: string) => {
    const name = (braced ?? bare) as string;
    // `$context.requestId.` followed by prose: take the longest known variable the dotted name starts with.
    for (let candidate = name; candidate !== ''; candidate = candidate.slice(0, Math.max(candidate.lastIndexOf('.'), 0))) {
      if (variables.has(candidate)) return `${variables.get(candidate) as string}${name.slice(candidate.length)}`;
    }
    return '';
  });

/** A header mapping: `'literal'`, or `context.<variable>` (empty when API Gateway would not fill it). */
const headerValue = (mapping: string, variables: Map<string, string>): string => {
  const literal = /^'(.*)'$/s.exec(mapping);
  if (literal) return literal[1] as string;
  return mapping.startsWith('context.') ? (variables.get(mapping.slice('context.'.length)) ?? '') : '';
};

export interface RenderedGatewayResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The response API Gateway sends for `type` on a request, from the API's gateway responses. */
export const renderGatewayResponse = (set: GatewayResponseSet, type: GatewayResponseType, context: Omit<GatewayResponseContext, 'responseType' | 'message'>): RenderedGatewayResponse => {
  const ownStatus = defaultStatus[type];
  const spec = set.get(type) ?? set.get(ownStatus >= 500 ? 'DEFAULT_5XX' : 'DEFAULT_4XX');
  const status = spec?.statusCode === undefined ? ownStatus : Number(spec.statusCode);
  const message = builtInMessage(ownStatus);
  const variables = contextVariables({ ...context, responseType: type, message });
  if (!spec) {
    const body = JSON.stringify({ message });
    return { status, headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }, body };
  }
  // API Gateway picks the template of the request's media type, else application/json, else the first one.
  const [mediaType, template] = Object.entries(spec.templates).find(([name]) => name === 'application/json') ?? Object.entries(spec.templates)[0] ?? ['application/json', JSON.stringify({ message: '$context.error.messageString' })];
  const body = substituteTemplate(template, variables);
  const headers: Record<string, string> = { 'Content-Type': mediaType };
  for (const [name, mapping] of Object.entries(spec.headers)) {
    const existing = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase());
    if (existing) delete headers[existing];
    headers[name] = headerValue(mapping, variables);
  }
  headers['Content-Length'] = String(Buffer.byteLength(body));
  return { status, headers, body };
};
