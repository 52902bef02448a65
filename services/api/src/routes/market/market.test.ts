import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import { ALICE, startTestApi, type TestApi } from '../../testing/harness.ts';
import { CAT_3, CATS, nftEconomy } from '../../testing/nft-economy.ts';
import { OWNER } from '../../testing/token-economy.ts';
import { MarketStats } from './schemas.ts';

describe('GET /api/market/stats', () => {
  let api: TestApi;
  afterEach(() => api.close());

  it('counts in its 24 hours the trades of blocks whose time is in them, also when block times run backwards', async () => {
    const T = 1_900_000_000;
    const chain = nftEconomy(); // CAT_3 on sale by OWNER for 500 MTC
    chain.openWallet(ALICE, [{ token: 0, balance: '100000' }]);
    chain.block([chain.buyItem({ item: CAT_3, buyer: ALICE })], { timestamp: T }); // 500: two days before the head
    chain.block([chain.sellItem({ item: CAT_3, seller: ALICE, price: '600', token: 0 })], { timestamp: T + 10 });
    chain.block([chain.buyItem({ item: CAT_3, buyer: OWNER })], { timestamp: T + 200_000 }); // 600: in the 24 hours
    chain.block([chain.sellItem({ item: CAT_3, seller: OWNER, price: '700', token: 0 })], { timestamp: T + 200_010 });
    // A block after those whose client time runs back two days: its trade is not of the 24 hours.
    chain.block([chain.buyItem({ item: CAT_3, buyer: ALICE })], { timestamp: T + 100 }); // 700
    chain.block([], { timestamp: T + 200_100 });
    api = await startTestApi({ fixture: chain });
    const { status, body } = await api.get<z.infer<typeof MarketStats>>(`/api/market/stats?asset=${CATS}`);
    expect(status).toBe(200);
    expect(MarketStats.parse(body)).toEqual(body);
    expect(body.time).toBe(T + 200_100);
    expect(body.payTokens).toEqual([
      {
        payToken: 0,
        trades: 3,
        volume: '1800',
        trades24h: 1,
        volume24h: '600',
        lastPrice: '700',
        lastUnit: '1',
        lastTime: T + 100,
      },
    ]);
  });
});
