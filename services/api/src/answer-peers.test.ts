import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { broadcastPeers } from './answer-peers.ts';
import {
  createResponseCache,
  type AnswerPeers,
  type CachePolicy,
  type ResponseCache,
  type SharedAnswer,
} from './http-cache.ts';

/** Peers that hand each answer to the others at once, in this thread: the cache's side alone. */
function directPeers(count: number): AnswerPeers[] {
  const takers: ((key: string, answer: SharedAnswer) => void)[] = [];
  return Array.from({ length: count }, (_, i) => ({
    publish: (key, answer) => takers.forEach((take, j) => j !== i && take(key, answer)),
    subscribe: (take) => void (takers[i] = take),
    close: () => {},
  }));
}

const built = (body: unknown, policy: CachePolicy) => async () => ({ body, policy, route: '/api/tx/{id}' });
const never = () => Promise.reject(new Error('a peer built an answer another one had built'));
const bodyOf = (cache: ResponseCache, key: string, height: number) => cache.held(key, height)?.body.toString();

describe('answer caches sharing what they build', () => {
  it('keeps what a peer built, so no peer builds it again', async () => {
    const [a, b] = directPeers(2).map((peers) => createResponseCache({ maxBytes: 1 << 20, peers }));
    const built10 = await a!.answer('/api/tx/aa', 10, built({ id: 'aa' }, 'immutable'));
    const kept = await b!.answer('/api/tx/aa', 12, never);
    expect(kept.body.toString()).toBe('{"id":"aa"}');
    expect([kept.etag, kept.height, kept.policy, kept.route]).toEqual([built10.etag, 10, 'immutable', '/api/tx/{id}']);
    // A head answer is the peer's only at the height it was built at.
    await b!.answer('/api/address/x', 12, built({ at: 12 }, 'head'));
    expect(bodyOf(a!, '/api/address/x', 12)).toBe('{"at":12}');
    expect(a!.held('/api/address/x', 13)).toBeUndefined();
  });

  it('keeps its own answer when a peer publishes an older one, and shares no uncacheable answer', async () => {
    const [a, b] = directPeers(2).map((peers) => createResponseCache({ maxBytes: 1 << 20, peers }));
    await b!.answer('/api/address/x', 12, built({ at: 12 }, 'head'));
    // A slow build at the head before lands after it.
    await a!.answer('/api/address/x', 11, built({ at: 11 }, 'head'));
    expect(bodyOf(b!, '/api/address/x', 12)).toBe('{"at":12}');
    await a!.answer('/api/chain', 12, built({ fresh: true }, 'none'));
    expect(b!.held('/api/chain', 12)).toBeUndefined();
  });

  it('travels between the threads of a process over a BroadcastChannel, body intact', async () => {
    const name = `answers-${randomUUID()}`;
    const [pa, pb] = [broadcastPeers(name), broadcastPeers(name)];
    const other = broadcastPeers(`answers-${randomUUID()}`);
    try {
      const [a, b, c] = [pa, pb, other].map((peers) => createResponseCache({ maxBytes: 1 << 20, peers }));
      // Small bodies are views of Node's shared buffer pool: only the answer's bytes may arrive.
      const body = { id: 'é'.repeat(40) };
      await a!.answer('/api/tx/bb', 7, built(body, 'immutable'));
      await vi.waitFor(() => expect(bodyOf(b!, '/api/tx/bb', 7)).toBe(JSON.stringify(body)));
      expect(b!.held('/api/tx/bb', 7)!.body.byteLength).toBe(Buffer.byteLength(JSON.stringify(body)));
      expect(c!.held('/api/tx/bb', 7)).toBeUndefined();
    } finally {
      for (const p of [pa, pb, other]) p.close();
    }
  });
});
