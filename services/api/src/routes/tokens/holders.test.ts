import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { address, createChain, GENESIS_TS, startTestApi, testConfig, type TestApi } from '../../testing/harness.ts';
import {
  CAROL,
  DAVE,
  ERIN,
  LOCK_FAR,
  LOCK_NEAR,
  LOCK_PAST,
  NOW,
  OWNER,
  tokenEconomy,
} from '../../testing/token-economy.ts';
import { TokenHoldersPage, TokenLocks, type TokenHolder, type TokenLockGroup } from './schemas.ts';

const chain = tokenEconomy();
/** Before DAVE's lock ran out. */
const EARLY = GENESIS_TS + 5_000;

const unlocked = { lock_balance: '0', unlockdate: 0, locks: [] };
const carolLocks = {
  lock_balance: '3250',
  unlockdate: LOCK_FAR,
  locks: [
    { amount: '3000', unlockdate: LOCK_FAR },
    { amount: '250', unlockdate: LOCK_NEAR },
  ],
};
/** Token 1 at NOW, largest balance first. */
const GOLD_HOLDERS: TokenHolder[] = [
  { address: OWNER, balance: '5720', token: 1, ...unlocked },
  { address: CAROL, balance: '3250', token: 1, ...carolLocks },
  // DAVE's 1000 were locked until LOCK_PAST: still in balance, no longer locked.
  { address: DAVE, balance: '1010', token: 1, ...unlocked },
  { address: ERIN, balance: '20', token: 1, ...unlocked },
];

describe('GET /api/token/{id}/holders', () => {
  let now = NOW * 1000;
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi({ fixture: chain, now: () => now });
  });
  afterAll(() => api.close());

  it('lists holders by balance as integers, with the projected count and total', async () => {
    now = NOW * 1000;
    const { status, body, headers } = await api.get<TokenHoldersPage>('/api/token/1/holders');
    expect(status).toBe(200);
    expect(TokenHoldersPage.parse(body)).toEqual(body);
    // 10 000 held (+ 300 in sale + 200 burnt = the 10 500 supply).
    expect(body).toEqual({
      token_id: 1,
      total: 4,
      total_balance: '10000',
      page: 1,
      limit: 20,
      holders: GOLD_HOLDERS,
      next: null,
      prev: null,
    });
    expect(headers.get('cache-control')).toBe('public, max-age=2');
  });

  it('counts only real holdings: zero token-0 entries and escrow-only amounts do not make balance', async () => {
    const mtc = await api.get<TokenHoldersPage>('/api/token/0/holders');
    expect(mtc.body).toMatchObject({ total: 2, total_balance: '1000000' });
    expect(mtc.body.holders.map((h) => [h.address, h.balance])).toEqual([
      [OWNER, '999900'],
      [DAVE, '100'],
    ]);
    const silver = await api.get<TokenHoldersPage>('/api/token/2/holders');
    expect(silver.body).toMatchObject({ total: 1, total_balance: '450' });
  });

  it('shows a lock while the clock is before its unlock date', async () => {
    now = EARLY * 1000;
    const { body } = await api.get<TokenHoldersPage>('/api/token/1/holders?limit=3&page=1');
    expect(body.holders[2]).toEqual({
      address: DAVE,
      balance: '1010',
      token: 1,
      lock_balance: '1000',
      unlockdate: LOCK_PAST,
      locks: [{ amount: '1000', unlockdate: LOCK_PAST }],
    });
    now = NOW * 1000;
  });

  it('pages with skip (p−1)·limit and reads the totals from the stats document', async () => {
    api.calls.length = 0;
    const { body } = await api.get<TokenHoldersPage>('/api/token/1/holders?limit=2&page=2');
    expect(body).toMatchObject({ total: 4, page: 2, limit: 2 });
    expect(body.holders).toEqual(GOLD_HOLDERS.slice(2));
    expect(api.calls.filter((c) => c.collection === 'holder_stats')).toEqual([
      { collection: 'holder_stats', method: 'get', args: ['1'] },
    ]);
    // The page's window is found through the token's ranked list, and its rows read by id.
    expect(api.calls.filter((c) => c.collection === 'holders')).toEqual([
      { collection: 'holders', method: 'getMany', args: [GOLD_HOLDERS.slice(2).map((h) => `1:${h.address}`)] },
    ]);
    expect(api.calls.filter((c) => c.collection === 'rank_dirs')).toEqual([
      { collection: 'rank_dirs', method: 'get', args: ['mrc010:1'] },
    ]);
    expect(api.calls.some((c) => c.method === 'find')).toBe(false);
    expect(api.calls.some((c) => c.method === 'count')).toBe(false);
    const past = await api.get<TokenHoldersPage>('/api/token/1/holders?limit=2&page=3');
    expect(past.body).toMatchObject({ total: 4, total_balance: '10000', holders: [] });
  });

  it('breaks balance ties by address', async () => {
    const [a, b, c] = [address('zed'), address('amy'), address('max')];
    const tie = createChain();
    tie.block([tie.newWallet(a), tie.newWallet(b), tie.newWallet(c)]);
    tie.block([
      tie.registerToken({
        token: 0,
        name: 'Tie',
        symbol: 'TIE',
        owner: a,
        totalsupply: '30',
        reserve: [a, b, c].map((x) => ({ address: x, value: '10' })),
      }),
    ]);
    const tieApi = await startTestApi({ fixture: tie });
    try {
      const { body } = await tieApi.get<TokenHoldersPage>('/api/token/0/holders');
      expect(body.holders.map((h) => h.address)).toEqual([b, c, a]);
    } finally {
      await tieApi.close();
    }
  });

  it('answers 404 for an unknown token and 400 for a bad id or paging', async () => {
    const missing = await api.get('/api/token/3/holders');
    expect(missing.status).toBe(404);
    expect(ErrorBody.parse(missing.body).error.code).toBe('not_found');
    expect((await api.get('/api/token/1/holders?limit=100')).status).toBe(200);
    for (const path of ['/api/token/x/holders', '/api/token/1/holders?limit=101', '/api/token/1/holders?page=0']) {
      const res = await api.get(path);
      expect(res.status, path).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
  });
});

describe('GET /api/token/{id}/locks', () => {
  const daveEarly: TokenLockGroup = {
    address: DAVE,
    lock_balance: '1000',
    unlockdate: LOCK_PAST,
    locks: [{ amount: '1000', unlockdate: LOCK_PAST }],
  };
  const carol: TokenLockGroup = { address: CAROL, ...carolLocks };

  it('groups the locks still ahead by address, soonest unlock first', async () => {
    let now = NOW * 1000;
    const api = await startTestApi({ fixture: chain, now: () => now });
    try {
      const { status, body } = await api.get<TokenLocks>('/api/token/1/locks');
      expect(status).toBe(200);
      expect(TokenLocks.parse(body)).toEqual(body);
      expect(body).toEqual({
        token_id: 1,
        scanned: 1,
        max: 1000,
        locked_addresses: 1,
        locks: [carol],
        next: null,
        prev: null,
      });
      now = EARLY * 1000;
      expect((await api.get<TokenLocks>('/api/token/1/locks')).body).toEqual({
        token_id: 1,
        scanned: 2,
        max: 1000,
        locked_addresses: 2,
        locks: [daveEarly, carol],
        next: null,
        prev: null,
      });
      expect((await api.get<TokenLocks>('/api/token/0/locks')).body).toEqual({
        token_id: 0,
        scanned: 0,
        max: 1000,
        locked_addresses: 0,
        locks: [],
        next: null,
        prev: null,
      });
    } finally {
      await api.close();
    }
  });

  it('examines at most TOKEN_LOCKS_MAX holders', async () => {
    const api = await startTestApi({
      fixture: chain,
      now: () => EARLY * 1000,
      config: testConfig({ TOKEN_LOCKS_MAX: '1' }),
    });
    try {
      expect((await api.get<TokenLocks>('/api/token/1/locks')).body).toEqual({
        token_id: 1,
        scanned: 1,
        max: 1,
        locked_addresses: 1,
        locks: [daveEarly],
        next: expect.any(String) as string,
        prev: null,
      });
    } finally {
      await api.close();
    }
  });

  it('answers 404 for an unknown token and 400 for a malformed id', async () => {
    const api = await startTestApi({ fixture: chain });
    try {
      const missing = await api.get('/api/token/7/locks');
      expect(missing.status).toBe(404);
      expect(ErrorBody.parse(missing.body).error.code).toBe('not_found');
      expect((await api.get('/api/token/-1/locks')).status).toBe(400);
    } finally {
      await api.close();
    }
  });
});
