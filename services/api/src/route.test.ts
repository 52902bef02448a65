import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineBytesRoute, defineRoute, type BytesRoute, type JsonRoute } from './route.ts';

const jsonRoute = defineRoute({
  path: '/api/example',
  operationId: 'getExample',
  tag: 'example',
  summary: 'An example',
  response: z.object({ ok: z.boolean() }),
  errors: [],
  cache: 'head',
  handle: () => Promise.resolve({ ok: true }),
});

const bytesRoute = defineBytesRoute({
  path: '/api/example.png',
  operationId: 'getExampleImage',
  tag: 'example',
  summary: 'An example image',
  mediaTypes: ['image/png'],
  responseDescription: 'A PNG.',
  errors: [],
  cache: 'immutable',
  handle: () => Promise.resolve({ bytes: new Uint8Array(), mediaType: 'image/png' }),
});

describe('route kinds', () => {
  it('types each answer by the kind its route declares, so no handler meets another kind', () => {
    const json: JsonRoute = jsonRoute;
    const bytes: BytesRoute = bytesRoute;
    // @ts-expect-error a JSON route is no bytes route: its answer has no body of bytes or media type
    const mixedUp: BytesRoute = jsonRoute;
    // @ts-expect-error nor is a bytes route one whose answer the answer cache keeps
    const alsoMixedUp: JsonRoute = bytesRoute;
    expect([json.kind, bytes.kind, mixedUp.kind, alsoMixedUp.kind]).toEqual(['json', 'bytes', 'json', 'bytes']);
  });
});
