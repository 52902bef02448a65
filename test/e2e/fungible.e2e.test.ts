import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevnet, DEFAULT_JOBS, startDevnetServer, type Devnet } from '@mtc/devnet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, type ExplorerProcess } from '../support/explorer-process.ts';
import { indexWholeHistory } from '../support/index-history.ts';
import {
  chainIndex,
  expectedAddress,
  expectedHolders,
  expectedToken,
  holdingsOf,
  readAllPages,
  readByCursors,
  validEntries,
  type ExpectedHolder,
} from '../support/fungible-truth.ts';
import { expectedTxStats, totalTransactions, walletMismatches } from '../support/ground-truth.ts';
import { expectedNftHoldings, withRecordIds } from '../support/nft-truth.ts';
import { backfillComparisons, walkActivityByCursors, type BackfillComparisons } from '../support/during-backfill.ts';
import {
  combinations,
  commonest,
  expectFiltered,
  heightSpan,
  query,
  rowMatches,
  transferTruth,
  type ActivityRow,
} from '../support/filter-truth.ts';
import { createSqliteReadStore } from '@mtc/adapters';
import {
  busiestAssets,
  busiestOwners,
  compareMarketDuring,
  expectAssetMarket,
  expectedStats,
  expectMarketRefusals,
  expectOpenOrders,
  expectOpenOrdersByCursor,
  expectOrder,
  inBatches,
  marketAt,
  marketCensus,
  marketChain,
  sampleOrders,
  type MarketChain,
  type Protocol,
} from '../support/market-truth.ts';

/**
 * Every fungible endpoint against the devnet's ground truth, on a history of 20,000+ transactions
 * that covers every MRC-010 job type (DEX included), indexed by the real all-in-one process. The
 * API's clock is pinned (CLOCK_NOW_UNIX) to a moment inside the last day of the history, so locks,
 * today-so-far and yesterday-at-the-same-time have known answers.
 */
describe('fungible endpoints end to end (embedded adapters)', () => {
  let devnet: Devnet;
  let node: { url: string; close(): Promise<void> };
  let dataDir: string;
  let explorer: ExplorerProcess | undefined;
  let api = '';
  let now = 0;
  let world: ReturnType<Devnet['worldState']>;
  let market: MarketChain;
  /** The market answers compared during the backfill, asserted by their own test below. */
  let marketDuring: BackfillComparisons | undefined;
  /** Orders listed in the pages compared during the backfill, by `protocol side`. */
  const marketRowsDuring: Record<string, number> = {};

  beforeAll(async () => {
    const wall = Math.floor(Date.now() / 1000);
    const blocks = 7_500;
    const interval = 30;
    devnet = createDevnet({
      seed: 2026,
      genesisTime: wall - blocks * interval,
      historyBlocks: blocks,
      blockIntervalSec: interval,
    });
    world = withRecordIds(devnet.worldState());
    market = marketChain(devnet);
    // A moment after the last block, so everything indexed is in the past of the API's clock.
    now = devnet.block(devnet.height())!.timestamp + 90;
    node = await startDevnetServer(devnet, { port: 0, faultRate: 0.01 });
    dataDir = await mkdtemp(join(tmpdir(), 'mtc-fungible-'));
  }, 120_000);

  afterAll(async () => {
    await explorer?.kill('SIGTERM');
    await node?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('has a history of 20,000+ transactions covering every job type the devnet writes', () => {
    expect(totalTransactions(devnet)).toBeGreaterThanOrEqual(20_000);
    const seen = new Set<string>();
    for (const { entry } of validEntries(devnet)) seen.add(entry.type);
    const missing = [...new Set(DEFAULT_JOBS.flatMap((j) => j.writes))].filter((t) => !seen.has(t));
    expect(missing).toEqual([]);
  });

  it('indexes the whole history, every token holder list exact at each height seen on the way', async () => {
    // During the backfill: page 1 of every token's holders at each height the index shows, held to
    // the chain's world at the height the answer names.
    const during = backfillComparisons(devnet);
    // And the market of MTC, of the most traded token and of a token with an open request at the
    // height (requests come and go; the head may have few): stats, page 1 of each side and of trades.
    const marketChecks = backfillComparisons(devnet);
    marketDuring = marketChecks;
    const marketAssets = [...new Set(['0', ...busiestAssets(market, 'MRC010', 1)])];
    // The busiest address's activity walked by cursors both ways while the index moves, once a
    // third of the history is in.
    const walks = backfillComparisons(devnet);
    const heightOf = new Map<string, number>();
    for (const { height, txId } of validEntries(devnet)) heightOf.set(txId, height);
    const [busiest, busiestTxs] = [...chainIndex(devnet).addressTxs].sort((a, b) => b[1].length - a[1].length)[0]!;
    const walkTxs = busiestTxs.map((id) => ({ id, height: heightOf.get(id)! }));
    const walked: { first: number; last: number }[] = [];
    const moved = () => walked.some((w) => w.last > w.first);
    explorer = await indexWholeHistory(
      devnet,
      dataDir,
      { CHAIN_NODE_URL: node.url, CLOCK_NOW_UNIX: String(now) },
      async (url, height) => {
        for (const token of during.world(height).tokens) {
          const r = await during.get<{ total: number; total_balance: string; holders: ExpectedHolder[] }>(
            `${url}/api/token/${token}/holders?limit=50`,
          );
          const want = expectedHolders(during.world(r.height).wallets, token, now);
          during.compare(
            `token ${token} holders`,
            r.height,
            { status: r.status, total: r.body.total, total_balance: r.body.total_balance, holders: r.body.holders },
            {
              status: 200,
              total: want.holders.length,
              total_balance: want.total.toString(),
              holders: want.holders.slice(0, 50),
            },
          );
        }
        const request = [...marketAt(market, height).orders.values()].find(
          (o) => o.side === 'buy' && o.status === 'open',
        );
        const assets = [...new Set([...marketAssets, ...(request ? [request.asset] : [])])];
        // Again at later heights until one walk saw blocks arrive between its first and last page.
        if (!moved() && walked.length < 8 && height >= devnet.height() / 3)
          walked.push(await walkActivityByCursors(`${url}/api/address/${busiest}/txs`, walkTxs, walks, 20));
        const rows = await compareMarketDuring(marketChecks, market, url, assets);
        for (const [key, n] of Object.entries(rows)) marketRowsDuring[key] = (marketRowsDuring[key] ?? 0) + n;
      },
    );
    api = explorer.apiUrl;
    console.info(
      `fungible during the backfill: ${during.compared} holder lists compared at ${during.heights.size} heights`,
    );
    expect(during.mismatches).toEqual([]);
    expect(during.heights.size).toBeGreaterThanOrEqual(3);
    // The cursor walk: every row once both ways, while blocks arrived between its first and last page.
    console.info(
      `fungible cursor walks of ${busiest} (${walkTxs.length} transactions) during the backfill, heights: ${JSON.stringify(walked)}`,
    );
    expect(walks.mismatches).toEqual([]);
    expect(walks.compared).toBe(2 * walked.length);
    expect(moved()).toBe(true);
  }, 760_000);

  it('keeps every wallet record field as the chain wrote it (registration, memo, entries, MRC-402 map)', async () => {
    const store = createSqliteReadStore({ path: join(dataDir, 'read-models.sqlite') });
    try {
      expect(await walletMismatches(store, devnet)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('serves every address as the chain holds it: balances, locks, sale and auction amounts, NFTs', async () => {
    const problems: string[] = [];
    for (const [address, wallet] of Object.entries(world.wallets)) {
      const { status, body } = await getJson(`${api}/api/address/${address}`);
      const want = expectedAddress(address, wallet, world.tokens, now, expectedNftHoldings(address, world));
      if (status !== 200 || JSON.stringify(body) !== JSON.stringify(want)) problems.push(address);
    }
    const [first] = problems;
    if (first)
      expect((await getJson(`${api}/api/address/${first}`)).body).toEqual(
        expectedAddress(first, world.wallets[first]!, world.tokens, now, expectedNftHoldings(first, world)),
      );
    expect(problems).toEqual([]);
  }, 300_000);

  it('lists every address activity once, newest first, with the chain total', async () => {
    const { addressTxs } = chainIndex(devnet);
    for (const [address, ids] of addressTxs) {
      const { rows, total } = await readAllPages<{ tx_id: string; db_sn: string }>(
        `${api}/api/address/${address}/txs`,
        (b) => b['data'] as { tx_id: string; db_sn: string }[],
      );
      expect(total, address).toBe(ids.length);
      expect(
        rows.map((r) => r.tx_id),
        address,
      ).toEqual([...ids].reverse());
    }
  }, 600_000);

  it('filters address activity by token, direction, kind and range, each combination exact on sampled addresses', async () => {
    const { addressTxs } = chainIndex(devnet);
    const transfers = transferTruth(devnet);
    const byActivity = [...addressTxs.entries()].sort((a, b) => b[1].length - a[1].length);
    // The five busiest addresses and every 40th of the rest.
    const sample = [...byActivity.slice(0, 5), ...byActivity.slice(5).filter((_, i) => i % 40 === 0)];
    let lists = 0;
    let checkedTransfers = 0;
    for (const [address] of sample) {
      const url = `${api}/api/address/${address}/txs`;
      const { rows } = await readAllPages<ActivityRow>(url, (b) => b['data'] as ActivityRow[]);
      // The rows' own token, direction and kind, for transfers and receives, as the chain's job_args say.
      for (const row of rows) {
        const truth = transfers.get(`${address}:${row.tx_id}`);
        if (!truth || (row.job_type !== 'transfer' && row.job_type !== 'receive')) continue;
        checkedTransfers++;
        expect({ token: row.tokenId, kind: row.kind, out: row.from === address, in: row.to === address }).toEqual({
          token: truth.token,
          kind: 'transfer',
          out: truth.direction.includes('out'),
          in: truth.direction.includes('in'),
        });
      }
      const tokens = commonest(rows, (r) => r.tokenId, 3);
      const kinds = commonest(rows, (r) => r.kind, 3);
      for (const f of combinations(tokens, kinds)) {
        const want = rows.filter((r) => rowMatches(address, r, f)).map((r) => r.tx_id);
        await expectFiltered(`${url}?${query(f)}`, want, `${address} ${query(f)}`);
        lists++;
      }
      // A height range over the middle third of its activity, alone and with a direction; and the
      // same span by block time.
      const heights = rows.map((r) => Number(r.db_sn));
      const lo = heights[Math.floor((rows.length * 2) / 3)] ?? 1;
      const hi = heights[Math.floor(rows.length / 3)] ?? devnet.height();
      const inRange = (r: ActivityRow, a: number, b: number) => Number(r.db_sn) >= a && Number(r.db_sn) <= b;
      await expectFiltered(
        `${url}?fromHeight=${lo}&toHeight=${hi}`,
        rows.filter((r) => inRange(r, lo, hi)).map((r) => r.tx_id),
        `${address} heights ${lo}-${hi}`,
      );
      await expectFiltered(
        `${url}?direction=out&fromHeight=${lo}&toHeight=${hi}`,
        rows.filter((r) => inRange(r, lo, hi) && r.from === address).map((r) => r.tx_id),
        `${address} out, heights ${lo}-${hi}`,
      );
      const fromTime = devnet.block(lo)!.timestamp + 1;
      const toTime = devnet.block(hi)!.timestamp;
      const span = heightSpan(devnet, fromTime, toTime);
      await expectFiltered(
        `${url}?fromTime=${fromTime}&toTime=${toTime}`,
        span ? rows.filter((r) => inRange(r, span.lo, span.hi)).map((r) => r.tx_id) : [],
        `${address} times ${fromTime}-${toTime}`,
      );
      lists += 3;
    }
    console.info(
      `address filters: ${lists} filtered lists on ${sample.length} addresses, ${checkedTransfers} transfer rows held to the chain`,
    );
    expect(checkedTransfers).toBeGreaterThan(100);
  }, 900_000);

  it("filters a token's activity by kind and range, exact for every token", async () => {
    let lists = 0;
    for (const token of Object.values(world.tokens)) {
      const url = `${api}/api/token/${token.token}/txs`;
      const { rows } = await readAllPages<ActivityRow & { block_sn: number }>(url, (b) => b['data'] as never);
      for (const kind of commonest(rows, (r) => r.kind, 4)) {
        await expectFiltered(
          `${url}?kind=${kind}`,
          rows.filter((r) => r.kind === kind).map((r) => r.tx_id),
          `token ${token.token} ${kind}`,
        );
        lists++;
      }
      const lo = rows.at(-1)?.block_sn ?? 1;
      const hi = Math.floor((lo + devnet.height()) / 2);
      await expectFiltered(
        `${url}?fromHeight=${lo + 1}&toHeight=${hi}`,
        rows.filter((r) => r.block_sn > lo && r.block_sn <= hi).map((r) => r.tx_id),
        `token ${token.token} heights`,
      );
      lists++;
    }
    expect(lists).toBeGreaterThan(Object.keys(world.tokens).length);
  }, 600_000);

  it('serves every token with its supply figures, and token 0 as /mtc-stats', async () => {
    for (const token of Object.values(world.tokens)) {
      const { status, body } = await getJson<Record<string, unknown>>(`${api}/api/token/${token.token}`);
      expect(status).toBe(200);
      expect(body).toMatchObject(expectedToken(token, world.wallets));
    }
    const mtc = expectedToken(world.tokens['0']!, world.wallets);
    const { body } = await getJson(`${api}/api/mtc-stats`);
    expect(body).toEqual({
      token: 0,
      name: mtc['name'],
      symbol: mtc['symbol'],
      decimal: mtc['decimal'],
      totalsupply: mtc['totalsupply'],
      circulation_supply: mtc['circulation_supply'],
      remainamount: mtc['remainamount'],
      burnningamount: mtc['burnningamount'],
      softcap: mtc['softcap'],
      hardcap: mtc['hardcap'],
      status: mtc['status'],
      createdate: mtc['createdate'],
    });
  }, 300_000);

  it('lists every token once, ascending, token 0 first', async () => {
    const { rows } = await readAllPages<{ token: number }>(
      `${api}/api/tokens`,
      (b) => b['items'] as { token: number }[],
    );
    expect(rows.map((r) => r.token)).toEqual(
      Object.values(world.tokens)
        .map((t) => t.token)
        .sort((a, b) => a - b),
    );
  });

  it('lists every token holder by balance, summing to total_balance, each equal to the address balance entry', async () => {
    let cursorWalks = 0;
    for (const token of Object.values(world.tokens)) {
      const want = expectedHolders(world.wallets, token.token, now);
      const { rows, total, first } = await readAllPages<ExpectedHolder>(
        `${api}/api/token/${token.token}/holders`,
        (b) => b['holders'] as ExpectedHolder[],
      );
      expect(total, `token ${token.token} holders`).toBe(want.holders.length);
      expect(first['total_balance']).toBe(want.total.toString());
      expect(rows).toEqual(want.holders);
      // Invariants: the rows sum to total_balance; nothing negative; each row is the address's entry.
      expect(rows.reduce((s, r) => s + BigInt(r.balance), 0n).toString()).toBe(first['total_balance']);
      for (const r of rows) {
        expect(r.balance).toMatch(/^[0-9]+$/);
        const h = holdingsOf(world.wallets[r.address]!, now).find((x) => x.token === token.token)!;
        expect(r.balance).toBe(h.balance.toString());
      }
      // By cursors, down and back up: every holder once, in the same order.
      if (want.holders.length > 30) {
        const walked = await readByCursors<ExpectedHolder>(
          `${api}/api/token/${token.token}/holders`,
          (b) => b['holders'] as ExpectedHolder[],
          30,
        );
        expect(walked.down, `token ${token.token} holders by next`).toEqual(want.holders);
        expect(walked.up, `token ${token.token} holders by prev`).toEqual(want.holders);
        cursorWalks += 1;
      }
    }
    console.info(`fungible: ${cursorWalks} holder lists walked by cursors both ways`);
    expect(cursorWalks).toBeGreaterThan(0);
  }, 600_000);

  it('groups every active lock by address', async () => {
    for (const token of Object.values(world.tokens)) {
      const want = expectedHolders(world.wallets, token.token, now).holders.filter((h) => h.locks.length > 0);
      const { body } = await getJson<{ locked_addresses: number; locks: { address: string }[] }>(
        `${api}/api/token/${token.token}/locks`,
      );
      expect(body.locked_addresses, `token ${token.token} locks`).toBe(want.length);
      expect(body.locks.map((l) => l.address).sort()).toEqual(want.map((h) => h.address).sort());
    }
  }, 300_000);

  it('tells every token lifecycle from creation: create, reserves, mints, burns', async () => {
    const { lifecycle } = chainIndex(devnet);
    for (const token of Object.values(world.tokens)) {
      const want = lifecycle.get(token.token) ?? [];
      const { body } = await getJson<{ total: number; events: { tx_id: string }[] }>(
        `${api}/api/token/${token.token}/history`,
      );
      expect(body.total).toBe(want.length);
      expect(body.events.map((e) => e.tx_id)).toEqual(want.map((e) => e.txId));
    }
  }, 300_000);

  it('lists every transfer of a token in its activity, each row once', async () => {
    const { transfers } = chainIndex(devnet);
    for (const token of Object.values(world.tokens)) {
      const { rows } = await readAllPages<{ tx_id: string }>(
        `${api}/api/token/${token.token}/txs`,
        (b) => b['data'] as { tx_id: string }[],
      );
      const ids = new Set(rows.map((r) => r.tx_id));
      for (const id of transfers.get(token.token) ?? [])
        expect(ids.has(id), `${id} in token ${token.token} txs`).toBe(true);
    }
  }, 600_000);

  it('counts today so far and yesterday at the same time from the chain, at the pinned clock', async () => {
    const { body } = await getJson<{ todaySoFar: number; yesterdaySameTime: number }>(`${api}/api/tx-stats`);
    const want = expectedTxStats(devnet, now, 0);
    expect(want.todaySoFar).toBeGreaterThan(0);
    expect(want.yesterdaySameTime).toBeGreaterThan(0);
    expect(body).toMatchObject(want);
  });

  it('finds an address and a token by its symbol, with the spec redirects', async () => {
    const [address] = Object.keys(world.wallets);
    expect((await getJson(`${api}/api/search?q=${address}`)).body).toEqual({ redirect: `/address/${address}/tx/1` });
    // Name and symbol matches are one match: the token list filtered by the query.
    const token = Object.values(world.tokens).at(-1)!;
    const q = encodeURIComponent(token.symbol);
    expect((await getJson(`${api}/api/search?q=${q}`)).body).toEqual({ redirect: `/token/list?search=${q}` });
  });

  it('holds a DEX market on chain: open orders of every side, orders in every closed status, trades of every kind', () => {
    const head = marketAt(market, devnet.height());
    // The truth reads the chain as the chaincode keeps it: its last writes are the devnet's records.
    const state = devnet.worldState();
    for (const [id, record] of Object.entries({ ...state.dex010, ...state.dex402, ...state.mrc401s }))
      expect(head.records.get(id), id).toEqual(record);
    const census = marketCensus(head);
    console.info(`market at the head: ${JSON.stringify(census)}`);
    // Open requests come and go (the head may have few): the backfill's checks list them.
    const floors: Record<string, number> = {
      'MRC010 sell open': 100,
      'MRC010 auction open': 30,
      'MRC010 sell filled': 20,
      'MRC010 buy filled': 50,
      'MRC010 sell cancelled': 50,
      'MRC010 buy cancelled': 50,
      'MRC010 auction cancelled': 10,
      'MRC010 auction sold': 40,
      'MRC010 auction failed': 50,
      'MRC010 sale trades': 200,
      'MRC010 request trades': 100,
      'MRC010 auction trades': 40,
    };
    for (const [what, floor] of Object.entries(floors)) expect(census[what] ?? 0, what).toBeGreaterThanOrEqual(floor);
    // Prices per a min_trade_unit other than 1 (so unit prices are rationals), lists longer than a
    // page, and trades on both sides of the 24-hour window.
    const open = [...head.orders.values()].filter((o) => o.protocol === 'MRC010' && o.status === 'open');
    expect(open.filter((o) => o.side !== 'auction' && o.unit !== '1').length).toBeGreaterThan(3);
    // Open auctions priced by their current bid as well as by their start price.
    const auctions = open.filter((o) => o.side === 'auction');
    expect(
      auctions.filter((o) => o.auction!.currentBidder === '' && o.price === o.auction!.startPrice).length,
    ).toBeGreaterThan(5);
    expect(
      auctions.filter((o) => o.auction!.currentBidder !== '' && o.price === o.auction!.currentPrice).length,
    ).toBeGreaterThan(5);
    const perAsset = new Map<string, number>();
    for (const { trade } of head.trades) perAsset.set(trade.asset, (perAsset.get(trade.asset) ?? 0) + 1);
    expect(Math.max(...perAsset.values())).toBeGreaterThan(50);
    const payTokens = Object.keys(world.tokens).flatMap((t) => expectedStats(head, t)!.payTokens);
    expect(payTokens.filter((p) => p.trades24h > 0).length).toBeGreaterThan(10);
    expect(payTokens.filter((p) => p.trades > p.trades24h).length).toBeGreaterThan(10);
  });

  it('kept every market answer true at the height it named while the index backfilled', () => {
    const during = marketDuring!;
    console.info(
      `market during the backfill: ${during.compared} answers compared at ${during.heights.size} heights, orders listed ${JSON.stringify(marketRowsDuring)}`,
    );
    expect(during.mismatches).toEqual([]);
    expect(during.heights.size).toBeGreaterThanOrEqual(3);
    for (const side of ['sell', 'buy', 'auction'])
      expect(marketRowsDuring[`MRC010 ${side}`] ?? 0, side).toBeGreaterThan(0);
  });

  it("serves every token's market as the chain holds it: stats, open orders of each side, trades by page, cursor and pay token", async () => {
    const tokens = Object.values(world.tokens).map((t) => String(t.token));
    const seen = await inBatches(tokens, 6, (asset) => expectAssetMarket(api, market, asset));
    const head = marketAt(market, devnet.height());
    const open = [...head.orders.values()].filter((o) => o.protocol === 'MRC010' && o.status === 'open');
    // Each open order once in its asset's list of all sides and once in its side's; every trade once.
    expect(seen.reduce((s, c) => s + c.orders, 0)).toBe(2 * open.length);
    // Lists of more than 10 open orders were walked by cursors both ways too.
    const walked = seen.reduce((s, c) => s + c.walked, 0);
    console.info(`market: ${walked} open orders walked by cursors both ways`);
    expect(walked).toBeGreaterThan(10);
    expect(seen.reduce((s, c) => s + c.trades, 0)).toBe(
      head.trades.filter((t) => t.trade.protocol === 'MRC010').length,
    );
  }, 600_000);

  it('serves sampled orders by id in every status, and every open order of sampled owners', async () => {
    const head = marketAt(market, devnet.height());
    const sample = sampleOrders(head, 4, ['MRC010']);
    const groups = [...new Set(sample.map((o) => `${o.side} ${o.status}`))].sort();
    expect(groups).toEqual([
      'auction cancelled',
      'auction failed',
      'auction open',
      'auction sold',
      'buy cancelled',
      'buy filled',
      'buy open',
      'sell cancelled',
      'sell filled',
      'sell open',
    ]);
    await inBatches(sample, 6, (o) => expectOrder(api, market, o.id));
    // Owners of any protocol's orders: the five with the most open orders, and a few others.
    const all: Protocol[] = ['MRC010', 'MRC402', 'MRC401'];
    const busiest = busiestOwners(head, 5, all);
    const others = Object.keys(world.wallets).filter((_, i) => i % 151 === 7);
    let listed = 0;
    for (const owner of [...busiest, ...others]) listed += await expectOpenOrders(api, market, { owner });
    // The busiest owner's orders by cursors both ways (newest first).
    expect(await expectOpenOrdersByCursor(api, market, { owner: busiest[0]! }, 7)).toBeGreaterThan(7);
    expect(listed).toBeGreaterThan(20);
    const top = busiest[0]!;
    for (const side of ['sell', 'buy', 'auction'] as const) await expectOpenOrders(api, market, { owner: top, side });
    const assets = [...head.orders.values()].filter((o) => o.owner === top && o.status === 'open').map((o) => o.asset);
    for (const asset of new Set(assets)) await expectOpenOrders(api, market, { asset, owner: top });
  }, 300_000);

  it('refuses malformed market queries with 400, and unknown assets and orders with 404', async () => {
    await expectMarketRefusals(api, marketAt(market, devnet.height()));
  });
});
