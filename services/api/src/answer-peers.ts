import type { CachedAnswer } from './http-cache.ts';

/** An answer as it travels between caches: without its compressed bodies (each cache makes its own). */
export type SharedAnswer = Omit<CachedAnswer, 'encoded' | 'ready'>;

/**
 * The other answer caches of one process (the all-in-one's API threads): what one builds, the others
 * keep, so an answer is built once per process rather than once per thread.
 */
export interface AnswerPeers {
  publish(key: string, answer: SharedAnswer): void;
  /** Calls `take` with every answer another peer publishes. */
  subscribe(take: (key: string, answer: SharedAnswer) => void): void;
  close(): void;
}

interface Message {
  key: string;
  answer: Omit<SharedAnswer, 'body'> & { body: Uint8Array };
}

/**
 * Peers over a BroadcastChannel named `name`: every thread of the process that opens the same name
 * (and no other process) gets each published answer, copied. Unreferenced: it keeps no thread alive.
 */
export function broadcastPeers(name: string): AnswerPeers {
  const channel = new BroadcastChannel(name);
  channel.unref();
  return {
    publish(key, answer) {
      // An exact copy: a small Buffer is a view of a shared pool slab, which would travel whole.
      const message: Message = { key, answer: { ...answer, body: new Uint8Array(answer.body) } };
      channel.postMessage(message);
    },
    subscribe(take) {
      channel.onmessage = (event) => {
        const { key, answer } = (event as { data: Message }).data;
        const { buffer, byteOffset, byteLength } = answer.body;
        take(key, { ...answer, body: Buffer.from(buffer, byteOffset, byteLength) });
      };
    },
    close: () => channel.close(),
  };
}
