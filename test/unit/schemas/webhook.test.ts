// Unit tests of the webhook event schema: required members, key-safe identifiers, extra members kept.
import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { WebhookAccepted, WebhookEventRequest } from '#shared/schemas/webhook';
import { issuePaths, issuesOf, repeat } from './support';

const event = {
  type: 'document.analysed',
  userId: 'user-42',
  organisationId: 'org-778',
  signature: 't=1767225600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
  data: { object: { id: 'doc_01HZY3', status: 'complete', pages: 3 } },
};

describe('WebhookEventRequest', () => {
  it('parses a valid event', () => {
    expect(WebhookEventRequest.parse(event)).toEqual(event);
  });

  it('keeps members beyond the known ones, at every level (the signature covers the whole event)', () => {
    const extended = { ...event, created: 1767225600, livemode: false, data: { ...event.data, previous: { status: 'queued' } } };
    expect(WebhookEventRequest.parse(extended)).toEqual(extended);
  });

  it.each(['type', 'userId', 'organisationId', 'signature', 'data'] as const)('requires %s', (member) => {
    const { [member]: _left, ...rest } = event;
    expect(issuesOf(WebhookEventRequest, rest)).toEqual([{ path: [member], code: 'invalid_type' }]);
  });

  it('requires data.object and its id', () => {
    expect(issuesOf(WebhookEventRequest, { ...event, data: {} })).toEqual([{ path: ['data', 'object'], code: 'invalid_type' }]);
    expect(issuesOf(WebhookEventRequest, { ...event, data: { object: {} } })).toEqual([
      { path: ['data', 'object', 'id'], code: 'invalid_type' },
    ]);
  });

  it.each(['org#778', 'org\u0000778', 'org\n778', 'org\u007f', ''])('refuses the organisationId %j', (organisationId) => {
    // An empty one breaks both the length and the pattern: every issue is on organisationId.
    expect(new Set(issuePaths(WebhookEventRequest, { ...event, organisationId }))).toEqual(new Set(['organisationId']));
  });

  it('refuses "#" and control characters in userId and the document id too', () => {
    expect(issuePaths(WebhookEventRequest, { ...event, userId: 'user#42' })).toEqual(['userId']);
    expect(issuePaths(WebhookEventRequest, { ...event, data: { object: { id: 'doc\u0001' } } })).toEqual(['data.object.id']);
  });

  it('accepts printable identifiers, including non-ASCII ones', () => {
    expect(WebhookEventRequest.safeParse({ ...event, organisationId: 'Société Générale / Ōsaka' }).success).toBe(true);
  });

  it('bounds every member', () => {
    expect(WebhookEventRequest.safeParse({ ...event, organisationId: repeat(128) }).success).toBe(true);
    expect(issuePaths(WebhookEventRequest, { ...event, organisationId: repeat(129) })).toEqual(['organisationId']);
    expect(issuePaths(WebhookEventRequest, { ...event, type: repeat(101) })).toEqual(['type']);
    expect(issuePaths(WebhookEventRequest, { ...event, signature: repeat(2049) })).toEqual(['signature']);
    expect(issuePaths(WebhookEventRequest, { ...event, data: { object: { id: repeat(257) } } })).toEqual(['data.object.id']);
  });

  it('refuses wrong types', () => {
    expect(issuePaths(WebhookEventRequest, { ...event, userId: 42 })).toEqual(['userId']);
    expect(issuePaths(WebhookEventRequest, { ...event, data: { object: 'doc_01HZY3' } })).toEqual(['data.object']);
  });

  it('converts to JSON Schema with the required members and open objects', () => {
    const document = z.toJSONSchema(WebhookEventRequest, { target: 'draft-2020-12' });
    const definition = document.$defs?.WebhookEventRequest;
    expect(definition?.required).toEqual(['type', 'userId', 'organisationId', 'signature', 'data']);
    expect(definition?.additionalProperties).toEqual({});
  });
});

describe('WebhookAccepted', () => {
  it('accepts a queued answer with a SHA-256 event id and refuses anything else', () => {
    expect(WebhookAccepted.safeParse({ eventId: 'a'.repeat(64), status: 'queued' }).success).toBe(true);
    expect(issuePaths(WebhookAccepted, { eventId: 'A'.repeat(64), status: 'queued' })).toEqual(['eventId']);
    expect(issuesOf(WebhookAccepted, { eventId: 'a'.repeat(64), status: 'queued', extra: 1 })).toEqual([
      { path: [], code: 'unrecognized_keys', keys: ['extra'] },
    ]);
  });
});
