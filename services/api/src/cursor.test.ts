import { afterEach, describe, expect, it } from 'vitest';
import { ErrorBody } from './errors.ts';
import type { AddressTxsPage } from './routes/addresses/schemas.ts';
import { address, createChain, startTestApi, testConfig, type TestApi } from './testing/harness.ts';
import { GOLD_NFT, nftEconomy } from './testing/nft-economy.ts';
import { CAROL, DAVE } from './testing/token-economy.ts';

const ALICE = address('alice');
const BOB = address('bob');

/** ALICE pays BOB `n` times (amounts 1 … n, one transfer a block), after both wallets exist. */
function payments(n: number) {
  const chain = createChain();
  chain.openWallet(ALICE, [{ token: 0, balance: '1000000' }]);
  chain.block([chain.newWallet(BOB)]);
  for (let i = 1; i <= n; i++) chain.block([chain.transfer({ from: ALICE, to: BOB, amount: String(i), token: 0 })]);
  return chain;
}

describe('cursor paging of the numbered lists', () => {
  let api: TestApi;
  afterEach(() => api.close());

  const page = async (query: string) => {
    const res = await api.get<AddressTxsPage>(`/api/address/${ALICE}/txs?${query}`);
    expect(res.status, query).toBe(200);
    return res.body;
  };
  const amounts = (body: AddressTxsPage) => body.data.map((r) => Number(r.amount));

  it('walks every row once, older then newer, while new rows arrive at the head', async () => {
    const chain = payments(10);
    api = await startTestApi({ fixture: chain });
    const seen: number[] = [];
    let body = await page('limit=3');
    expect(body.prev).toBeNull();
    let more = 11;
    for (;;) {
      seen.push(...amounts(body));
      // Two blocks arrive between every two pages: page numbers shift by them, cursors do not.
      for (let i = 0; i < 2; i++, more++) {
        chain.block([chain.transfer({ from: ALICE, to: BOB, amount: String(more), token: 0 })]);
      }
      await api.project(chain);
      if (body.next === null) break;
      body = await page(`limit=3&cursor=${body.next}`);
    }
    expect(seen).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    // Back up from the oldest page: every row once, through the rows that arrived meanwhile.
    const back: number[] = [];
    for (;;) {
      back.push(...amounts(body).reverse());
      if (body.prev === null) break;
      body = await page(`limit=4&cursor=${body.prev}`);
    }
    expect(back).toEqual(Array.from({ length: more - 1 }, (_, i) => i + 1));
    expect(body.total).toBe(more - 1);
  });

  it('walks /api/blocks and /api/transactions once each while blocks arrive, by their cursors', async () => {
    const chain = payments(8);
    api = await startTestApi({ fixture: chain });
    const walk = async <T>(path: string, rows: (body: Record<string, unknown>) => T[]) => {
      const seen: T[] = [];
      let query = 'limit=3';
      for (let more = 100; ; more++) {
        const { status, body } = await api.get<Record<string, unknown> & { next: string | null }>(`${path}?${query}`);
        expect(status).toBe(200);
        seen.push(...rows(body));
        chain.block([chain.transfer({ from: ALICE, to: BOB, amount: String(more), token: 0 })]);
        await api.project(chain);
        if (body.next === null) return seen;
        query = `limit=3&cursor=${body.next}`;
      }
    };
    // 9 blocks when the walk starts (BOB's wallet, then 8 payments); each page adds one more.
    const heights = await walk('/api/blocks', (b) => (b['blocks'] as { height: number }[]).map((x) => x.height));
    expect(heights).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const head = chain.height;
    const txs = await walk('/api/transactions', (b) => (b['transactions'] as { id: string }[]).map((x) => x.id));
    expect(txs).toEqual(Array.from({ length: head }, (_, i) => chain.events[head - 1 - i]!.txs[0]!.id));
  });

  it('walks /api/tokens up and back down by its cursors, each id once, while tokens are registered', async () => {
    const chain = payments(1);
    let registered = 0;
    const register = () => {
      registered += 1;
      chain.block([
        chain.registerToken({
          token: registered,
          name: `T${registered}`,
          symbol: `T${registered}`,
          owner: ALICE,
          totalsupply: '1',
        }),
      ]);
    };
    for (let i = 0; i < 5; i++) register();
    api = await startTestApi({ fixture: chain });
    type Tokens = { items: { token: number }[]; page: number; next: string | null; prev: string | null };
    const get = async (query: string) => {
      const res = await api.get<Tokens>(`/api/tokens?${query}`);
      expect(res.status, query).toBe(200);
      return res.body;
    };
    let body = await get('limit=2');
    expect(body.prev).toBeNull();
    const up: number[] = [];
    for (;;) {
      up.push(...body.items.map((t) => t.token));
      register(); // a new id at the end of the list between every two pages
      await api.project(chain);
      if (body.next === null) break;
      body = await get(`limit=2&cursor=${body.next}`);
    }
    // Ids 1 … the last one registered before the last page was read (this chain has no token 0).
    expect(up).toEqual(Array.from({ length: up.length }, (_, i) => i + 1));
    expect(up.length).toBeGreaterThan(6);
    expect(body.page).toBe(Math.ceil((up.length + 1) / 2));
    const down: number[] = [];
    for (;;) {
      down.push(...body.items.map((t) => t.token).reverse());
      if (body.prev === null) break;
      body = await get(`limit=3&cursor=${body.prev}`);
    }
    expect(down).toEqual([...up].reverse());
  });

  it('keeps its place in a filtered list and answers the page number its rows are on now', async () => {
    const chain = payments(6);
    chain.block([chain.transfer({ from: BOB, to: ALICE, amount: '10', token: 0 })]);
    api = await startTestApi({ fixture: chain });
    const first = await page('direction=out&limit=4');
    expect(amounts(first)).toEqual([6, 5, 4, 3]);
    const second = await page(`direction=out&limit=4&cursor=${first.next}`);
    expect(amounts(second)).toEqual([2, 1]);
    expect(second).toMatchObject({ total: 6, page: 2, next: null });
    expect(amounts(await page(`direction=out&limit=4&cursor=${second.prev}`))).toEqual([6, 5, 4, 3]);
  });

  it('answers 400 for a cursor of another list or other filters, and for one it never gave', async () => {
    api = await startTestApi({ fixture: payments(5) });
    const { next } = await page('limit=2');
    expect(next).not.toBeNull();
    const bob = await api.get(`/api/address/${BOB}/txs?cursor=${next}`);
    const filtered = await api.get(`/api/address/${ALICE}/txs?direction=out&cursor=${next}`);
    for (const res of [bob, filtered]) {
      expect(res.status).toBe(400);
      expect(ErrorBody.parse(res.body).error.message).toMatch(/another list or other filters/);
    }
    for (const cursor of ['nope', 'e30', Buffer.from('{"k":"x","o":0}').toString('base64url'), '%%%']) {
      const res = await api.get(`/api/address/${ALICE}/txs?cursor=${cursor}`);
      expect(res.status, cursor).toBe(400);
      expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
    }
  });
});

describe('cursor paging of the ranked lists (holders by balance)', () => {
  let api: TestApi;
  afterEach(() => api.close());

  type Holders = {
    holders: { address: string; balance: string }[];
    page: number;
    total: number;
    next: string | null;
    prev: string | null;
  };
  const holders = async (query: string) => {
    const res = await api.get<Holders>(`/api/token/1/holders?${query}`);
    expect(res.status, query).toBe(200);
    return res.body;
  };
  const recipient = (i: number) => address(`r${i}`);
  const newcomer = (i: number) => address(`n${i}`);

  /** ALICE pays recipient i (1 … 10) 10·i MTC: the list is ALICE, then r10 … r1. */
  function spread() {
    const chain = createChain();
    chain.openWallet(ALICE, [{ token: 1, balance: '1000000' }]);
    chain.block([chain.registerToken({ token: 1, name: 'One', symbol: 'ONE', owner: ALICE, totalsupply: '1000000' })]);
    for (let i = 1; i <= 10; i++) {
      chain.block([chain.newWallet(recipient(i))]);
      chain.block([chain.transfer({ from: ALICE, to: recipient(i), amount: String(10 * i), token: 1 })]);
    }
    return chain;
  }

  it('walks every holder once down and back up while new holders arrive above the cursor', async () => {
    const chain = spread();
    api = await startTestApi({ fixture: chain });
    const down: string[] = [];
    let body = await holders('limit=3');
    expect(body.prev).toBeNull();
    let arrived = 0;
    for (;;) {
      down.push(...body.holders.map((h) => h.address));
      // A holder larger than every recipient arrives between every two pages: above the cursor.
      arrived += 1;
      chain.block([chain.newWallet(newcomer(arrived))]);
      chain.block([chain.transfer({ from: ALICE, to: newcomer(arrived), amount: String(1000 + arrived), token: 1 })]);
      await api.project(chain);
      if (body.next === null) break;
      body = await holders(`limit=3&cursor=${body.next}`);
    }
    expect(down).toEqual([ALICE, ...Array.from({ length: 10 }, (_, i) => recipient(10 - i))]);
    expect(arrived).toBe(4);
    // The last page's first row (r2) is now on page 5 of 3: the 4 newcomers pushed it down.
    expect(body.page).toBe(Math.floor((1 + 4 + 8) / 3) + 1);
    const up: string[] = [];
    for (;;) {
      up.unshift(...body.holders.map((h) => h.address));
      if (body.prev === null) break;
      body = await holders(`limit=4&cursor=${body.prev}`);
    }
    const newcomers = [4, 3, 2, 1].map(newcomer);
    expect(up).toEqual([ALICE, ...newcomers, ...Array.from({ length: 10 }, (_, i) => recipient(10 - i))]);
    expect(body).toMatchObject({ page: 1, total: 15 });
  });

  it('keeps a cursor when the holder it names moves: the next page starts where that holder was', async () => {
    const chain = spread();
    api = await startTestApi({ fixture: chain });
    const first = await holders('limit=4'); // ALICE, r10, r9, r8
    expect(first.holders.at(-1)!.address).toBe(recipient(8));
    chain.block([chain.transfer({ from: recipient(8), to: ALICE, amount: '80', token: 1 })]); // r8 leaves the list
    await api.project(chain);
    const second = await holders(`limit=4&cursor=${first.next}`);
    expect(second.holders.map((h) => h.address)).toEqual([7, 6, 5, 4].map(recipient));
    expect(second.holders.map((h) => h.balance)).toEqual(['70', '60', '50', '40']);
  });

  it('pages the locks and an NFT list by cursor, and refuses a cursor of another list', async () => {
    const chain = spread();
    for (let i = 1; i <= 5; i++) {
      chain.block([chain.newWallet(newcomer(i))]);
      chain.block([
        chain.transfer({ from: ALICE, to: newcomer(i), amount: '7', token: 1, unlockdate: 4_000_000_000 + i }),
      ]);
    }
    api = await startTestApi({ fixture: chain, config: testConfig({ TOKEN_LOCKS_MAX: '2' }) });
    type Locks = { locks: { address: string }[]; scanned: number; next: string | null; prev: string | null };
    const locked: string[] = [];
    let body = (await api.get<Locks>('/api/token/1/locks')).body;
    expect(body.prev).toBeNull();
    for (;;) {
      locked.push(...body.locks.map((l) => l.address));
      if (body.next === null) break;
      body = (await api.get<Locks>(`/api/token/1/locks?cursor=${body.next}`)).body;
    }
    expect(locked).toEqual([1, 2, 3, 4, 5].map(newcomer));
    const back = (await api.get<Locks>(`/api/token/1/locks?cursor=${body.prev}`)).body;
    expect(back.locks.map((l) => l.address)).toEqual([3, 4].map(newcomer));
    // A holder list's cursor elsewhere, or a numbered list's here: 400.
    const { next } = await holders('limit=2');
    for (const path of [
      `/api/token/1/locks?cursor=${next}`,
      `/api/token/2/holders?cursor=${next}`,
      `/api/nft-holders?id=MRC402_x&cursor=${next}`,
    ]) {
      const res = await api.get(path);
      expect(res.status, path).toBe(400);
    }
    const numbered = (await api.get<AddressTxsPage>(`/api/address/${ALICE}/txs?limit=1`)).body.next;
    const res = await api.get(`/api/token/1/holders?cursor=${numbered}`);
    expect(res.status).toBe(400);
    expect(ErrorBody.parse(res.body).error.message).toMatch(/another list/);
  });
});

describe('cursor paging of the open DEX orders (keyset over price or time)', () => {
  let api: TestApi;
  afterEach(() => api.close());

  type Orders = {
    items: { id: string; price: string }[];
    total: number;
    page: number;
    next: string | null;
    prev: string | null;
  };
  const orders = async (query: string) => {
    const res = await api.get<Orders>(`/api/market/orders?${query}`);
    expect(res.status, query).toBe(200);
    return res.body;
  };

  /** ALICE offers 1 unit of token 1 eight times, at prices 100 … 800 (one sale a block). */
  function market() {
    const chain = createChain();
    chain.openWallet(ALICE, [
      { token: 0, balance: '1000000' },
      { token: 1, balance: '1000' },
    ]);
    chain.block([chain.registerToken({ token: 1, name: 'One', symbol: 'ONE', owner: ALICE, totalsupply: '1000' })]);
    for (let i = 1; i <= 8; i++)
      chain.block([chain.sell({ seller: ALICE, token: 1, amount: '1', price: String(100 * i) })]);
    return chain;
  }

  it('walks the sales cheapest first, each once both ways, while cheaper ones arrive above the cursor', async () => {
    const chain = market();
    api = await startTestApi({ fixture: chain });
    const prices: string[] = [];
    let body = await orders('asset=1&side=sell&limit=3');
    expect(body.prev).toBeNull();
    let cheaper = 0;
    for (;;) {
      prices.push(...body.items.map((o) => o.price));
      cheaper += 1;
      chain.block([chain.sell({ seller: ALICE, token: 1, amount: '1', price: String(10 - cheaper) })]);
      await api.project(chain);
      if (body.next === null) break;
      body = await orders(`asset=1&side=sell&limit=3&cursor=${body.next}`);
    }
    expect(prices).toEqual(['100', '200', '300', '400', '500', '600', '700', '800']);
    // The last page was read before the last cheaper sale arrived; its first row (700) follows 6 + 2 rows.
    expect(body).toMatchObject({ total: 8 + cheaper - 1, page: Math.floor((6 + cheaper - 1) / 3) + 1 });
    const back: string[] = [];
    for (;;) {
      back.unshift(...body.items.map((o) => o.price));
      if (body.prev === null) break;
      body = await orders(`asset=1&side=sell&limit=2&cursor=${body.prev}`);
    }
    const arrived = Array.from({ length: cheaper }, (_, i) => String(10 - cheaper + i));
    expect(back).toEqual([...arrived, ...prices]);
  });

  it("walks an owner's orders newest first once while new ones arrive, and refuses another filter's cursor", async () => {
    const chain = market();
    api = await startTestApi({ fixture: chain });
    const all = await orders(`owner=${ALICE}&limit=50`);
    expect(all.items.map((o) => o.price)).toEqual(['800', '700', '600', '500', '400', '300', '200', '100']);
    const seen: string[] = [];
    let body = await orders(`owner=${ALICE}&limit=3`);
    for (let more = 1; ; more++) {
      seen.push(...body.items.map((o) => o.id));
      chain.block([chain.sell({ seller: ALICE, token: 1, amount: '1', price: String(900 + more) })]);
      await api.project(chain);
      if (body.next === null) break;
      body = await orders(`owner=${ALICE}&limit=3&cursor=${body.next}`);
    }
    expect(seen).toEqual(all.items.map((o) => o.id));
    for (const query of [`asset=1&side=buy&cursor=${body.prev}`, `owner=${BOB}&cursor=${body.prev}`]) {
      const res = await api.get(`/api/market/orders?${query}`);
      expect(res.status, query).toBe(400);
      expect(ErrorBody.parse(res.body).error.message).toMatch(/another list/);
    }
  });
});

describe('cursor paging of an oldest-first history', () => {
  let api: TestApi;
  afterEach(() => api.close());

  it('walks /api/nft-history from creation to the newest entry and back, each once, while entries arrive', async () => {
    const chain = nftEconomy(); // GOLD_NFT: created by CAROL (100), then CAROL → DAVE 30
    for (let i = 11; i <= 15; i++)
      chain.block([chain.transferMrc402({ id: GOLD_NFT, from: CAROL, to: DAVE, amount: String(i) })]);
    api = await startTestApi({ fixture: chain });
    type History = {
      total: number;
      history: { txid: string; amount: string }[];
      next: string | null;
      prev: string | null;
    };
    const get = async (query: string) => {
      const res = await api.get<History>(`/api/nft-history?id=${GOLD_NFT}&${query}`);
      expect(res.status, query).toBe(200);
      return res.body;
    };
    let body = await get('limit=2');
    expect(body.prev).toBeNull();
    const forward: string[] = [];
    for (let sent = 1; ; sent++) {
      forward.push(...body.history.map((h) => h.amount));
      // A transfer of `sent` units arrives between every two pages, at the end of the history.
      if (sent <= 2) {
        chain.block([chain.transferMrc402({ id: GOLD_NFT, from: CAROL, to: DAVE, amount: String(sent) })]);
        await api.project(chain);
      }
      if (body.next === null) break;
      body = await get(`limit=2&cursor=${body.next}`);
    }
    const all = (await get('limit=1000')).history.map((h) => h.amount);
    expect(all).toEqual(['100', '30', '11', '12', '13', '14', '15', '1', '2']);
    expect(forward).toEqual(all);
    const back: string[] = [];
    for (;;) {
      back.unshift(...body.history.map((h) => h.amount));
      if (body.prev === null) break;
      body = await get(`limit=3&cursor=${body.prev}`);
    }
    expect(back).toEqual(all);
    // An /nft-tx cursor is not a history cursor.
    const txCursor = (await api.get<{ next: string }>(`/api/nft-tx?id=${GOLD_NFT}&limit=1`)).body.next;
    expect((await api.get(`/api/nft-history?id=${GOLD_NFT}&cursor=${txCursor}`)).status).toBe(400);
  });
});
