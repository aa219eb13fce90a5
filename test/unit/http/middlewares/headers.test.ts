// The two header middlewares alone: case-insensitive-headers.ts writes the case-insensitive maps and notes an ambiguous
// once-only header on the request; refuse-ambiguous-headers.ts refuses what was noted.
import { describe, expect, it } from '@jest/globals';
import { RepeatedHeader } from '#shared/http/header-lines';
import { caseInsensitiveHeaders } from '#shared/http/middlewares/case-insensitive-headers';
import { refuseAmbiguousHeaders } from '#shared/http/middlewares/refuse-ambiguous-headers';
import { apiEvent, middlewareRequest, run } from '../support';

describe('caseInsensitiveHeaders', () => {
  it('replaces both maps by lower-case names and notes nothing when every once-only header is sent once', async () => {
    const event = apiEvent({ headers: { 'Content-TYPE': 'application/json', Accept: 'application/xml' } });
    const request = await run(caseInsensitiveHeaders().before, middlewareRequest(event));
    expect(request.event.headers).toEqual({ host: 'abc123def4.execute-api.eu-west-1.amazonaws.com', 'content-type': 'application/json', accept: 'application/xml' });
    expect(request.event.multiValueHeaders).toEqual({
      host: ['abc123def4.execute-api.eu-west-1.amazonaws.com'],
      'content-type': ['application/json'],
      accept: ['application/xml'],
    });
    expect(request.internal.ambiguousHeader).toBeUndefined();
  });

  it('notes a once-only header sent on two lines in two case forms, keeping both lines', async () => {
    const event = apiEvent({ headers: { 'Content-Type': 'application/xml', 'content-type': 'application/json' } });
    const request = await run(caseInsensitiveHeaders().before, middlewareRequest(event));
    expect(request.event.multiValueHeaders['content-type']).toEqual(['application/xml', 'application/json']);
    expect(request.internal.ambiguousHeader).toEqual({ header: 'Content-Type', lines: 2 });
  });

  it('notes a once-only header whose two maps disagree', async () => {
    const event = { ...apiEvent(), headers: { Authorization: 'Bearer a' }, multiValueHeaders: { Authorization: ['Bearer b'] } };
    const request = await run(caseInsensitiveHeaders().before, middlewareRequest(event));
    expect(request.internal.ambiguousHeader?.header).toBe('Authorization');
  });
});

describe('refuseAmbiguousHeaders', () => {
  it('refuses the header case-insensitive-headers noted, naming it', async () => {
    const request = middlewareRequest(apiEvent(), { ambiguousHeader: { header: 'Idempotency-Key', lines: 2 } });
    const refused = run(refuseAmbiguousHeaders().before, request);
    await expect(refused).rejects.toBeInstanceOf(RepeatedHeader);
    await expect(refused).rejects.toMatchObject({ status: 400, header: 'Idempotency-Key' });
  });

  it('lets a request through when nothing was noted', async () => {
    await expect(run(refuseAmbiguousHeaders().before, middlewareRequest(apiEvent()))).resolves.toBeDefined();
  });
});
