import { describe, expect, it } from 'vitest';
import { buildChain, fakeChain, startTestApi, testConfig } from '../../testing/harness.ts';
import { ChainOverview } from './schemas.ts';

const fixture = buildChain(30);

describe('GET /api/chain', () => {
  it('reports both heights and the 10 newest blocks and transactions with the spec types', async () => {
    const api = await startTestApi({ fixture, chain: fakeChain(fixture, 33) });
    try {
      const { status, body } = await api.get<ChainOverview>('/api/chain');
      expect(status).toBe(200);
      expect(ChainOverview.parse(body)).toEqual(body);
      expect(body.localBlock).toBe(30);
      expect(body.mainnetBlock).toBe(33);
      expect(body.blocks.map((b) => b.height)).toEqual([30, 29, 28, 27, 26, 25, 24, 23, 22, 21]);
      expect(body.blocks[0]).toEqual({
        height: 30,
        hash: fixture.blocks[29]!.hash,
        txCount: 0,
        timestamp: fixture.blocks[29]!.timestamp,
      });
      const newest = fixture.txs.slice(-10).reverse();
      expect(body.transactions.map((t) => t.id)).toEqual(newest.map((t) => t.id));
      const tx = newest[0]!;
      expect(body.transactions[0]).toEqual({
        id: tx.id,
        type: 'transfer',
        from: tx.summary.from,
        to: tx.summary.to,
        amount: '1000',
        token: tx.summary.token,
        blockNum: tx.height,
        blockTs: fixture.blocks[tx.height - 1]!.timestamp,
      });
    } finally {
      await api.close();
    }
  });

  it('shows only what is at or below the indexed head', async () => {
    // Blocks 21 … 30 are projected but for their head write: the head still says 20.
    const api = await startTestApi({ fixture, headAt: 20 });
    try {
      const { body } = await api.get<ChainOverview>('/api/chain');
      expect(body.localBlock).toBe(20);
      expect(body.blocks[0]!.height).toBe(20);
      expect(body.transactions[0]!.id).toBe(fixture.txs.filter((t) => t.height <= 20).at(-1)!.id);
    } finally {
      await api.close();
    }
  });

  it('asks the node at most once per MAINNET_HEIGHT_CACHE_MS', async () => {
    let now = 1_000_000;
    const chain = fakeChain(fixture, 31);
    const api = await startTestApi({
      fixture,
      chain,
      now: () => now,
      config: testConfig({ MAINNET_HEIGHT_CACHE_MS: '2000' }),
    });
    try {
      await api.get('/api/chain');
      chain.nodeHeight = 32;
      now += 1999;
      expect((await api.get<ChainOverview>('/api/chain')).body.mainnetBlock).toBe(31);
      now += 1;
      expect((await api.get<ChainOverview>('/api/chain')).body.mainnetBlock).toBe(32);
      expect(chain.calls.height).toBe(2);
    } finally {
      await api.close();
    }
  });

  it('keeps asking the node when CLOCK_NOW_UNIX pins the data clock', async () => {
    const chain = fakeChain(fixture, 31);
    const api = await startTestApi({
      fixture,
      chain,
      config: testConfig({ MAINNET_HEIGHT_CACHE_MS: '1', CLOCK_NOW_UNIX: '1700000000' }),
    });
    try {
      expect((await api.get<ChainOverview>('/api/chain')).body.mainnetBlock).toBe(31);
      chain.nodeHeight = 32;
      // The cache lasts 1 ms of real time: ask until it has passed (a pinned cache clock never would).
      const deadline = Date.now() + 2000;
      let seen = 31;
      while (seen !== 32 && Date.now() < deadline)
        seen = (await api.get<ChainOverview>('/api/chain')).body.mainnetBlock;
      expect(seen).toBe(32);
    } finally {
      await api.close();
    }
  });

  it('falls back to the last known node height when the node goes down', async () => {
    let now = 0;
    const chain = fakeChain(fixture, 35);
    const api = await startTestApi({ fixture, chain, now: () => now });
    try {
      await api.get('/api/chain');
      chain.down = true;
      now += 60_000;
      const { status, body } = await api.get<ChainOverview>('/api/chain');
      expect(status).toBe(200);
      expect(body.mainnetBlock).toBe(35);
    } finally {
      await api.close();
    }
  });

  it('falls back to localBlock when the node never answered', async () => {
    const chain = fakeChain(fixture, 35);
    chain.down = true;
    const api = await startTestApi({ fixture, chain });
    try {
      const { status, body } = await api.get<ChainOverview>('/api/chain');
      expect(status).toBe(200);
      expect(body.mainnetBlock).toBe(30);
    } finally {
      await api.close();
    }
  });

  it('reports zeros and empty lists before anything is indexed', async () => {
    const api = await startTestApi({ chain: fakeChain(null, 0) });
    try {
      const { body } = await api.get('/api/chain');
      expect(body).toEqual({ localBlock: 0, mainnetBlock: 0, blocks: [], transactions: [] });
    } finally {
      await api.close();
    }
  });
});
