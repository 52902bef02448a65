import { createMemoryReadStore } from '@mtc/adapters';
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
});
