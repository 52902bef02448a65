import { createMemoryReadStore } from '@mtc/adapters';
import { decodeCollection, decodeItem, decodeMrc402Record, type StateEvent, type StateWrite } from '@mtc/domain';
import { describe, expect, it } from 'vitest';
import { openModels } from './registry.ts';
import { projectState } from './state.ts';
import { chainBuilder, stateEventsOf, token } from './testing/events.ts';

const A = 'MTaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa00000001';

function history() {
  const chain = chainBuilder();
  return [
    chain.block([
      {
        tokens: [token(3, { owner: A, url: 'old', image: 'data:image/png;base64,AAAA' })],
        wallets: [{ address: A, balances: [[3, '10']] }],
      },
    ]),
    chain.block([
      {
        tokens: [token(3, { owner: A, url: 'new', image: '' })],
        wallets: [{ address: A, balances: [[3, '7']], addinfo: 'memo' }],
      },
    ]),
  ];
}

describe('projectState', () => {
  it('keeps the newest wallet and token record, whatever order the writes arrive in', async () => {
    for (const order of ['forward', 'reversed'] as const) {
      const store = createMemoryReadStore();
      const events = stateEventsOf(history());
      await store.write(projectState(order === 'forward' ? events : events.reverse()));
      const m = openModels(store);
      expect(await m.wallets.get(A), order).toMatchObject({ addinfo: 'memo', balances: [{ token: 3, balance: '7' }] });
      expect(await m.tokens.get('3'), order).toMatchObject({ url: 'new', hasImage: false });
      expect(await m.tokenImages.get('3'), order).toMatchObject({ image: '' });
    }
  });

  it('writes each record once, at its newest, however often the events write it', () => {
    const events = stateEventsOf(history());
    for (const order of [events, [...events].reverse()]) {
      const writes = projectState(order);
      const wallets = writes.filter((w) => w.collection === 'wallets');
      expect(wallets).toHaveLength(1);
      expect(wallets[0]).toMatchObject({ op: 'putIfNewer', doc: { _id: A, addinfo: 'memo' } });
      expect(writes.filter((w) => w.collection === 'tokens')).toMatchObject([{ doc: { url: 'new' } }]);
    }
  });

  it('never lets a replayed older token write overwrite a newer one', async () => {
    const store = createMemoryReadStore();
    const events = stateEventsOf(history());
    await store.write(projectState(events));
    await store.write(projectState(events.slice(0, 2)));
    const m = openModels(store);
    expect(await m.tokens.get('3')).toMatchObject({ url: 'new' });
    expect(await m.wallets.get(A)).toMatchObject({ balances: [{ balance: '7' }] });
  });

  it('keeps the image apart from the token list document', async () => {
    const store = createMemoryReadStore();
    await store.write(projectState(stateEventsOf(history().slice(0, 1))));
    const m = openModels(store);
    const doc = await m.tokens.get('3');
    expect(doc).toMatchObject({ hasImage: true, nameKey: 'token 3', symbolKey: 't3' });
    expect(doc && 'image' in doc).toBe(false);
    expect(await m.tokenImages.get('3')).toMatchObject({ image: 'data:image/png;base64,AAAA' });
  });

  it('keeps the newest NFT records: an item melted after a transfer stays MELTED, in any order', async () => {
    const collection = `MRC400_${'b'.repeat(32)}1`;
    const item = `${collection}_${'Q'.repeat(40)}`;
    const mrc402 = `MRC402_${'a'.repeat(32)}0`;
    const B = 'MTbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb00000002';
    const at = (height: number, write: StateWrite): StateEvent => ({
      schemaVersion: 1,
      eventId: `state:${write.pos}`,
      height,
      txId: 'f'.repeat(64),
      write,
    });
    const pos = (h: number) => `${String(h).padStart(12, '0')}:00000:00000`;
    const events = [
      at(1, {
        kind: 'nftCollection',
        key: collection,
        pos: pos(1),
        jobType: 'mrc400_create',
        collection: decodeCollection(collection, { owner: A, name: 'Cats' }),
      }),
      at(2, {
        kind: 'nftItem',
        key: item,
        pos: pos(2),
        jobType: 'mrc401_create',
        item: decodeItem(item, { owner: A }),
      }),
      at(3, {
        kind: 'nftItem',
        key: item,
        pos: pos(3),
        jobType: 'mrc401_transfer',
        item: decodeItem(item, { owner: B }),
      }),
      at(4, {
        kind: 'nftItem',
        key: item,
        pos: pos(4),
        jobType: 'mrc401_melt',
        item: decodeItem(item, { owner: 'MELTED' }),
      }),
      at(5, {
        kind: 'mrc402',
        key: mrc402,
        pos: pos(5),
        jobType: 'mrc402_burn',
        mrc402: decodeMrc402Record(mrc402, { creator: B, name: 'Gold', totalsupply: '-3', meltedamount: '5' }),
      }),
    ];
    for (const order of ['forward', 'reversed'] as const) {
      const store = createMemoryReadStore();
      await store.write(projectState(order === 'forward' ? events : [...events].reverse()));
      const m = openModels(store);
      expect(await m.nftItems.get(item), order).toMatchObject({
        owner: 'MELTED',
        jobType: 'mrc401_melt',
        mrc400: collection,
      });
      expect(await m.nftCollections.get(collection), order).toMatchObject({ owner: A, nameKey: 'cats' });
      expect(await m.mrc402s.get(mrc402), order).toMatchObject({
        totalsupply: '-3',
        meltedamount: '5',
        nameKey: 'gold',
      });
    }
  });
});
