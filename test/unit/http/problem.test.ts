// Unit tests of shared/http/problem.ts: every thrown value becomes an RFC 9457 problem that reveals nothing internal,
// with the platform's outcome members (IsSuccess false, Messages, ErrorCode) as extension members.
import { describe, expect, it } from '@jest/globals';
import {
  ApiError,
  ConcurrentModification,
  isTransientFailure,
  maxReportedErrors,
  maxReportedPointerLength,
  NotFound,
  pointerSegment,
  problemKinds,
  ServiceUnavailable,
  StaleVersion,
  ValidationFailed,
  WriteOutcomeUnknown,
} from '#shared/errors';
import { parseXml } from '#shared/http/codecs/xml';
import { problemResponse, problemXml, toApiError, toProblem } from '#shared/http/problem';
import { maxBodyDepth } from '#shared/http/codecs/depth';
import { committedDocument } from '#test/support/openapi-ajv';

/** An error shaped like the ones the AWS SDK v3 throws. */
const sdkError = (name: string, fault: 'client' | 'server', message = 'Rate exceeded for table business-platform') =>
  Object.assign(new Error(message), { name, $fault: fault, $metadata: { httpStatusCode: fault === 'server' ? 500 : 400, requestId: 'RQ1' } });

const networkError = (code: string) =>
  Object.assign(new Error(`connect ${code} 127.0.0.1:8000`), { code, syscall: 'connect', address: '127.0.0.1', port: 8000 });

/** The parts of an ApiError a client can see. */
const visible = (error: ApiError) => ({
  status: error.status,
  kind: error.kind,
  detail: error.detail,
  errors: error.errors,
  headers: error.headers,
});

const unavailable = {
  status: 503,
  kind: problemKinds.serviceUnavailable,
  detail: 'A service this operation depends on is unavailable; retry shortly.',
  errors: undefined,
  headers: { 'Retry-After': '2' },
};

const internal = {
  status: 500,
  kind: problemKinds.internal,
  detail: 'The request could not be completed.',
  errors: undefined,
  headers: {},
};

describe('toApiError', () => {
  it('passes an ApiError through as it is', () => {
    const error = new ValidationFailed([{ pointer: '/Name', detail: 'is required' }]);

    expect(toApiError(error)).toBe(error);
  });

  it.each([
    ['ThrottlingException', sdkError('ThrottlingException', 'client')],
    ['ProvisionedThroughputExceededException', sdkError('ProvisionedThroughputExceededException', 'client')],
    ['RequestLimitExceeded', sdkError('RequestLimitExceeded', 'client')],
    ['ServiceUnavailable', sdkError('ServiceUnavailable', 'server')],
    ['InternalServerError', sdkError('InternalServerError', 'server')],
    ['TransactionInProgressException', sdkError('TransactionInProgressException', 'client')],
    ['TransactionConflictException', sdkError('TransactionConflictException', 'client')],
    ['any server fault from the SDK', sdkError('SomethingNewException', 'server')],
    ['ECONNREFUSED', networkError('ECONNREFUSED')],
    ['ECONNRESET', networkError('ECONNRESET')],
    ['ETIMEDOUT', networkError('ETIMEDOUT')],
    ['ENOTFOUND', networkError('ENOTFOUND')],
  ])('maps a dependency that is down (%s) to 503 with Retry-After', (_case, error) => {
    expect(visible(toApiError(error))).toEqual(unavailable);
  });

  it.each([
    ['a plain Error', new Error('password=hunter2 while writing T#7/LOC#0000000001')],
    ['a TypeError', new TypeError("Cannot read properties of undefined (reading 'Name')")],
    ['a client fault of the SDK', sdkError('ConditionalCheckFailedException', 'client', 'The conditional request failed')],
    ['a server fault that is not from the SDK (no $metadata)', Object.assign(new Error('boom'), { $fault: 'server' })],
    ['an unrelated error code', Object.assign(new Error('no such file /etc/secret'), { code: 'ENOENT' })],
    ['a plain object that looks like a throttling error', { name: 'ThrottlingException', message: 'Rate exceeded' }],
    ['a string', 'secret connection string'],
    ['undefined', undefined],
    ['null', null],
  ])('maps anything else (%s) to a 500 that says nothing about it', (_case, thrown) => {
    const error = toApiError(thrown);
    const sent = JSON.stringify(toProblem(error, 'req-1'));

    expect(visible(error)).toEqual(internal);
    expect(sent).not.toMatch(/hunter2|Cannot read|conditional|boom|ENOENT|secret|Rate exceeded|stack|\s+at\s/);
  });
});

describe('isTransientFailure: a failure that only says "not now" (a queued refund is never failed for it)', () => {
  it.each([
    ['a throttle', sdkError('ThrottlingException', 'client')],
    ['a DynamoDB 500', sdkError('InternalServerError', 'server')],
    ['a refused connection', networkError('ECONNREFUSED')],
    ['a 503 of the service\'s own', new ServiceUnavailable('busy', 2)],
    ['contention past its retries', new ConcurrentModification()],
    ['a write whose outcome is unknown', new WriteOutcomeUnknown()],
  ])('is true for %s', (_case, error) => {
    expect(isTransientFailure(error)).toBe(true);
  });

  it.each([
    ['a TypeError (a defect)', new TypeError('x is undefined')],
    ['a refused condition', sdkError('ConditionalCheckFailedException', 'client')],
    ['a stale version', new StaleVersion()],
    ['a thing that only looks like a throttle', { name: 'ThrottlingException' }],
  ])('is false for %s', (_case, error) => {
    expect(isTransientFailure(error)).toBe(false);
  });
});

describe('toProblem', () => {
  it('carries type, title, status, detail, the request id as instance, and IsSuccess false, Messages, ErrorCode', () => {
    expect(toProblem(new NotFound('Tenant location 9 does not exist.'), 'req-1')).toStrictEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'Tenant location 9 does not exist.',
      instance: 'req-1',
      IsSuccess: false,
      Messages: ['Tenant location 9 does not exist.'],
      ErrorCode: 404,
    });
  });

  it('lists in Messages the detail, then each field error as text: pointer or parameter, then what is wrong', () => {
    const problem = toProblem(
      new ValidationFailed([
        { pointer: '/Name', detail: 'must be at most 200 characters' },
        { pointer: '/Address/City', detail: 'is not a known field (names are case-sensitive)' },
        { parameter: 'addressType', detail: 'must be Billing, Delivery, Service or Postal (or 1, 2, 3, 4)' },
        { pointer: '', detail: 'the body must be an object' },
      ]),
      'req-3',
    );

    expect([problem.IsSuccess, problem.ErrorCode, problem.Messages]).toStrictEqual([
      false,
      400,
      [
        'The request is not valid; see errors for each field.',
        '/Name: must be at most 200 characters',
        '/Address/City: is not a known field (names are case-sensitive)',
        'addressType: must be Billing, Delivery, Service or Postal (or 1, 2, 3, 4)',
        'the body must be an object',
      ],
    ]);
  });

  it('says nothing more in Messages than in detail for a 500', () => {
    expect(toProblem(toApiError(new Error('password=hunter2')), 'r').Messages).toStrictEqual(['The request could not be completed.']);
  });

  it('lists errors only when there are some', () => {
    expect([toProblem(new StaleVersion(), 'r').errors, toProblem(new ValidationFailed([]), 'r')]).toStrictEqual([
      [{ pointer: '/Version', detail: 'stale' }],
      {
        type: 'tag:business-platform.api,2026:problems/validation-failed',
        title: 'Request validation failed',
        status: 400,
        detail: 'The request is not valid; see errors for each field.',
        instance: 'r',
        IsSuccess: false,
        Messages: ['The request is not valid; see errors for each field.'],
        ErrorCode: 400,
      },
    ]);
  });
});

describe('the field errors a problem reports are bounded, whoever built them', () => {
  // Member names are the client's: a refusal that repeated all of them, or a name as long as the body, in errors and
  // again in Messages, was more than a Lambda function may answer (6 MB): a 502 for a refused body.
  it(`lists the first ${maxReportedErrors} errors`, () => {
    const errors = Array.from({ length: 170_000 }, (_, index) => ({ pointer: `/a/${index}`, detail: 'is out of range' }));
    const problem = toProblem(new ValidationFailed(errors), 'r');
    expect(problem.errors).toStrictEqual(errors.slice(0, maxReportedErrors));
    expect(problem.Messages).toHaveLength(maxReportedErrors + 1);
  });

  it.each([
    ['a member name as long as the body', `/${pointerSegment('<'.repeat(1_000_000))}`, ''],
    ['a long name below a short one', `/Object/${'k'.repeat(10_000)}/0`, '/Object'],
    ['slashes, each written ~1', `/Address/${pointerSegment('/'.repeat(2_000))}`, '/Address'],
    ['many short segments', `/${'abc/'.repeat(600)}end`, `/${'abc/'.repeat(511)}abc`],
  ])('reports a pointer too long to repeat (%s) at its deepest ancestor that fits, saying so', (_case, pointer, ancestor) => {
    const [reported] = toProblem(new ValidationFailed([{ pointer, detail: 'is not a known field' }]), 'r').errors ?? [];
    expect(reported).toStrictEqual({ pointer: ancestor, detail: `a member below this one, whose pointer is longer than ${maxReportedPointerLength} characters: is not a known field` });
    expect(pointer.startsWith(`${ancestor}/`)).toBe(true);
    expect(ancestor.length).toBeLessThanOrEqual(maxReportedPointerLength);
  });

  it('keeps every pointer of the document\'s own member names within the depth bound', () => {
    let longest = '';
    const walk = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      const properties = (node as { properties?: Record<string, unknown> }).properties;
      for (const name of Object.keys(properties ?? {})) if (name.length > longest.length) longest = name;
      Object.values(node).forEach(walk);
    };
    walk(committedDocument);
    const pointer = `/${pointerSegment(longest)}`.repeat(maxBodyDepth + 1);
    expect(toProblem(new ValidationFailed([{ pointer, detail: 'd' }]), 'r').errors).toStrictEqual([{ pointer, detail: 'd' }]);
  });

  it(`keeps a pointer of ${maxReportedPointerLength} characters as it is`, () => {
    const pointer = `/${'n'.repeat(maxReportedPointerLength - 1)}`;
    expect(toProblem(new ValidationFailed([{ pointer, detail: 'd' }]), 'r').errors).toStrictEqual([{ pointer, detail: 'd' }]);
  });

  it('keeps the response small in XML, where < is written &lt;', () => {
    const errors = Array.from({ length: 1_000 }, (_, index) => ({ pointer: `/${'<'.repeat(100_000)}/${index}`, detail: 'd' }));
    expect(problemXml(toProblem(new ValidationFailed(errors), 'r')).length).toBeLessThan(100_000);
  });
});

describe('problemXml', () => {
  const problem = toProblem(
    new ValidationFailed([
      { pointer: '/Name', detail: 'must be at most 200 characters & <not> more' },
      { parameter: 'id', detail: 'must be a positive 32-bit integer' },
    ]),
    'req-1',
  );

  it('writes the RFC 9457 XML form: urn:ietf:rfc:7807 namespace, list members (errors, Messages) as <i>', () => {
    expect(problemXml(problem)).toBe(
      '<?xml version="1.0" encoding="utf-8"?><problem xmlns="urn:ietf:rfc:7807">' +
        '<type>tag:business-platform.api,2026:problems/validation-failed</type><title>Request validation failed</title>' +
        '<status>400</status><detail>The request is not valid; see errors for each field.</detail><instance>req-1</instance>' +
        '<errors><i><pointer>/Name</pointer><detail>must be at most 200 characters &amp; &lt;not&gt; more</detail></i>' +
        '<i><parameter>id</parameter><detail>must be a positive 32-bit integer</detail></i></errors>' +
        '<IsSuccess>false</IsSuccess><Messages><i>The request is not valid; see errors for each field.</i>' +
        '<i>/Name: must be at most 200 characters &amp; &lt;not&gt; more</i><i>id: must be a positive 32-bit integer</i></Messages>' +
        '<ErrorCode>400</ErrorCode></problem>',
    );
  });

  it('is well-formed: it parses back with parseXml to the same values', () => {
    expect(parseXml(problemXml(problem))).toEqual({
      type: 'tag:business-platform.api,2026:problems/validation-failed',
      title: 'Request validation failed',
      status: '400',
      detail: 'The request is not valid; see errors for each field.',
      instance: 'req-1',
      errors: {
        i: [
          { pointer: '/Name', detail: 'must be at most 200 characters & <not> more' },
          { parameter: 'id', detail: 'must be a positive 32-bit integer' },
        ],
      },
      IsSuccess: 'false',
      Messages: {
        i: [
          'The request is not valid; see errors for each field.',
          '/Name: must be at most 200 characters & <not> more',
          'id: must be a positive 32-bit integer',
        ],
      },
      ErrorCode: '400',
    });
  });

  it('has no errors element when the problem has none', () => {
    expect(parseXml(problemXml(toProblem(new NotFound(), 'req-2')))).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: '404',
      detail: 'The resource does not exist.',
      instance: 'req-2',
      IsSuccess: 'false',
      Messages: { i: 'The resource does not exist.' },
      ErrorCode: '404',
    });
  });
});

describe('problemResponse', () => {
  it('answers problem+json with the status and the error headers', () => {
    const response = problemResponse(toApiError(networkError('ECONNREFUSED')), 'req-1', false);

    expect({ ...response, body: JSON.parse(response.body) as unknown }).toEqual({
      statusCode: 503,
      headers: { 'Content-Type': 'application/problem+json; charset=utf-8', 'Retry-After': '2' },
      body: {
        type: 'about:blank',
        title: 'Service Unavailable',
        status: 503,
        detail: 'A service this operation depends on is unavailable; retry shortly.',
        instance: 'req-1',
        IsSuccess: false,
        Messages: ['A service this operation depends on is unavailable; retry shortly.'],
        ErrorCode: 503,
      },
    });
  });

  it('answers problem+xml when asked for XML', () => {
    const response = problemResponse(new NotFound(), 'req-1', true);

    expect(response).toEqual({
      statusCode: 404,
      headers: { 'Content-Type': 'application/problem+xml; charset=utf-8' },
      body: problemXml(toProblem(new NotFound(), 'req-1')),
    });
  });
});
