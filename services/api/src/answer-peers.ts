import type { AnswerPeers, SharedAnswer } from './http-cache.ts';

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
