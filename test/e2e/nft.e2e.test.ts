import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDevnet, DEFAULT_JOBS, startDevnetServer, type Devnet } from '@mtc/devnet';
import { MRC400 } from '@mtc/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, waitFor, type ExplorerProcess } from '../support/explorer-process.ts';
import { indexWholeHistory } from '../support/index-history.ts';
import { readAllPages, readByCursors, validEntries } from '../support/fungible-truth.ts';
import { totalTransactions } from '../support/ground-truth.ts';
import {
  expectedCollection,
  expectedCollectionHolders,
  expectedItem,
  expectedMrc402,
  expectedMrc402Holders,
  expectedNftHoldings,
  nftChain,
  withRecordIds,
  type ExpectedHolders,
  type NftChain,
} from '../support/nft-truth.ts';
import { backfillComparisons, type BackfillComparisons } from '../support/during-backfill.ts';
import {
  busiestAssets,
  busiestOwners,
  compareMarketDuring,
  expectAssetMarket,
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
 * Every NFT endpoint against the devnet's ground truth (its world state of collections, items,
 * MRC-402s and wallets, and its raw chain), on a history of 20,000+ transactions that holds every
 * MRC-400/401/402 job type in both argument layouts, indexed by the real all-in-one process.
 */
/** A holder list walked by its cursors (10 a page down, 6 back up) equals `want` both ways: 1. */
async function expectCursorWalk(url: string, want: readonly unknown[]): Promise<number> {
  const walked = await readByCursors(url, (b) => b['holders'] as unknown[], 10);
  expect(walked.down, `${url} by next`).toEqual(want);
  expect(walked.up, `${url} by prev`).toEqual(want);
  return 1;
}

describe('NFT endpoints end to end (embedded adapters)', () => {
  let devnet: Devnet;
  let node: { url: string; close(): Promise<void> };
  let dataDir: string;
  let explorer: ExplorerProcess | undefined;
  let api = '';
  let world: ReturnType<Devnet['worldState']>;
  let chain: NftChain;
  let market: MarketChain;
  /** The market answers compared during the backfill, asserted by their own test below. */
  let marketDuring: BackfillComparisons | undefined;
  /** Items on sale in the sell pages compared during the backfill. */
  let itemSalesDuring = 0;

  beforeAll(async () => {
    const wall = Math.floor(Date.now() / 1000);
    const blocks = 7_500;
    const interval = 30;
    devnet = createDevnet({
      seed: 4242,
      genesisTime: wall - blocks * interval,
      historyBlocks: blocks,
      blockIntervalSec: interval,
    });
    world = withRecordIds(devnet.worldState());
    chain = nftChain(devnet);
    market = marketChain(devnet);
    node = await startDevnetServer(devnet, { port: 0, faultRate: 0.01 });
    dataDir = await mkdtemp(join(tmpdir(), 'mtc-nft-'));
  }, 120_000);

  afterAll(async () => {
    await explorer?.kill('SIGTERM');
    await node?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('has a history of 20,000+ transactions holding every NFT job type, with NFTs of each kind', () => {
    expect(totalTransactions(devnet)).toBeGreaterThanOrEqual(20_000);
    const seen = new Set<string>();
    for (const { entry } of validEntries(devnet)) seen.add(entry.type);
    const nftTypes = [...new Set(DEFAULT_JOBS.flatMap((j) => j.writes))].filter((t) => /mrc40[012]/.test(t));
    expect(nftTypes.length).toBeGreaterThan(40);
    expect(nftTypes.filter((t) => !seen.has(t))).toEqual([]);
    expect(Object.keys(world.mrc400s).length).toBeGreaterThan(5);
    expect(Object.keys(world.mrc401s).length).toBeGreaterThan(50);
    expect(Object.keys(world.mrc402s).length).toBeGreaterThan(5);
    expect(Object.values(world.mrc401s).some((i) => i.owner === 'MELTED')).toBe(true);
  });

  it('indexes the whole history, every NFT holder list exact at each height seen on the way', async () => {
    // During the backfill: page 1 of every MRC-402's and every collection's holders at each height
    // the index shows, held to the chain's world at the height the answer names.
    const during = backfillComparisons(devnet);
    type Holders = { total: number; total_balance: string; holders: unknown[] };
    const page1 = (want: ExpectedHolders, got: Holders) => ({
      ...want,
      holders: want.holders.slice(0, got.holders?.length ?? 0), // a 5xx body has none
    });
    // And the market of the most traded MRC-402 and collection, and of a collection with an item on
    // sale at the height (items are on sale briefly; the head may have none): stats, page 1 of each
    // side and of trades.
    const marketChecks = backfillComparisons(devnet);
    marketDuring = marketChecks;
    const marketAssets = [...busiestAssets(market, 'MRC402', 1), ...busiestAssets(market, 'MRC401', 1)];
    explorer = await indexWholeHistory(devnet, dataDir, { CHAIN_NODE_URL: node.url }, async (url, height) => {
      const at = during.world(height);
      for (const id of [...at.mrc402s, ...at.mrc400s]) {
        const r = await during.get<Holders>(`${url}/api/nft-holders?id=${id}`);
        const world = during.world(r.height);
        const want = id.startsWith('MRC402_')
          ? expectedMrc402Holders(id, world.wallets)
          : expectedCollectionHolders(id, world.mrc401s);
        const got = { total: r.body.total, total_balance: r.body.total_balance, holders: r.body.holders };
        during.compare(
          `${id} holders`,
          r.height,
          { status: r.status, rows: got.holders?.length, ...got },
          {
            status: 200,
            rows: Math.min(20, want.total),
            ...page1(want, got),
          },
        );
      }
      const onSale = [...marketAt(market, height).orders.values()].find(
        (o) => o.protocol === 'MRC401' && o.side === 'sell',
      );
      const assets = [...new Set([...marketAssets, ...(onSale ? [onSale.asset] : [])])];
      itemSalesDuring += (await compareMarketDuring(marketChecks, market, url, assets))['MRC401 sell'] ?? 0;
    });
    console.info(
      `NFTs during the backfill: ${during.compared} holder lists compared at ${during.heights.size} heights`,
    );
    expect(during.mismatches).toEqual([]);
    expect(during.heights.size).toBeGreaterThanOrEqual(3);
    api = explorer.apiUrl;
    // NFT records come with the state topic too: the last item created is the last to arrive.
    const [last] = Object.values(world.mrc401s).sort((a, b) => b.createdate - a.createdate);
    await waitFor(
      'the NFT records to be indexed',
      async () => ((await getJson(`${api}/api/nft/${last!.id}`)).status === 200 ? true : undefined),
      120_000,
      500,
    );
  }, 900_000);

  it('serves every MRC-402 as the devnet holds it, circulation being what its holders hold', async () => {
    let quirky = 0;
    for (const t of Object.values(world.mrc402s)) {
      const { status, body } = await getJson(`${api}/api/nft/${t.id}`);
      expect(status, t.id).toBe(200);
      expect(body, t.id).toEqual(expectedMrc402(t, chain));
      // The burn quirk: for NFTs burned after a melt the record no longer implies the circulation.
      if (BigInt(t.totalsupply) - BigInt(t.meltedamount) !== chain.circulation.get(t.id)) quirky++;
    }
    expect(quirky, 'MRC-402s whose totalsupply − meltedamount is not their circulation').toBeGreaterThan(0);
  }, 300_000);

  it('lists every MRC-402 holder with sale and auction amounts and ratios; the totals sum to the circulation', async () => {
    let walks = 0;
    for (const t of Object.values(world.mrc402s)) {
      const want = expectedMrc402Holders(t.id, world.wallets);
      const { rows, first } = await readAllPages<{ total: string }>(
        `${api}/api/nft-holders?id=${t.id}`,
        (b) => b['holders'] as { total: string }[],
      );
      expect({ total: first['total'], total_balance: first['total_balance'], holders: rows }, t.id).toEqual(want);
      const sum = rows.reduce((s, r) => s + BigInt(r.total.split('.')[0]!), 0n);
      expect(sum, `${t.id}: Σ holder totals vs the chain's circulation`).toBe(chain.circulation.get(t.id));
      if (want.holders.length > 10) walks += await expectCursorWalk(`${api}/api/nft-holders?id=${t.id}`, want.holders);
    }
    console.info(`nft: ${walks} MRC-402 holder lists walked by cursors both ways`);
    expect(walks).toBeGreaterThan(0);
  }, 600_000);

  it('serves every collection and every item as the devnet holds it', async () => {
    for (const c of Object.values(world.mrc400s)) {
      const { status, body } = await getJson(`${api}/api/nft/${c.id}`);
      expect(status, c.id).toBe(200);
      expect(body, c.id).toEqual(expectedCollection(c, chain));
    }
    for (const item of Object.values(world.mrc401s)) {
      const { status, body } = await getJson(`${api}/api/nft/${item.id}`);
      expect(status, item.id).toBe(200);
      expect(body, item.id).toEqual(expectedItem(item, world, chain));
    }
  }, 600_000);

  it('lists every collection’s holders by items owned and its items newest first with their owners', async () => {
    const items = Object.values(world.mrc401s);
    let walks = 0;
    for (const c of Object.values(world.mrc400s)) {
      const want = expectedCollectionHolders(c.id, items);
      const { rows, first } = await readAllPages(`${api}/api/nft-holders?id=${c.id}`, (b) => b['holders'] as unknown[]);
      expect({ total: first['total'], total_balance: first['total_balance'], holders: rows }, c.id).toEqual(want);
      if (want.holders.length > 10) walks += await expectCursorWalk(`${api}/api/nft-holders?id=${c.id}`, want.holders);

      const listed = await readAllPages<{ id: string; owner: string }>(
        `${api}/api/nft-items?id=${c.id}`,
        (b) => b['items'] as { id: string; owner: string }[],
      );
      const created = [...(chain.itemsOf.get(c.id) ?? [])].reverse();
      expect(
        listed.rows.map((r) => [r.id, r.owner]),
        c.id,
      ).toEqual(created.map((id) => [id, world.mrc401s[id]!.owner]));
    }
    console.info(`nft: ${walks} collection holder lists walked by cursors both ways`);
    expect(walks).toBeGreaterThan(0);
  }, 600_000);

  it('tells every NFT’s history oldest first from its creation, and its transactions newest first', async () => {
    const nfts = [...Object.keys(world.mrc400s), ...Object.keys(world.mrc402s)];
    for (const id of nfts) {
      const { status, body } = await getJson<{ total: number; history: { txid: string }[] }>(
        `${api}/api/nft-history?id=${id}`,
      );
      expect(status, id).toBe(200);
      expect(body.history.length, id).toBe(body.total);
      const touching = chain.touching.get(id) ?? [];
      // Oldest first from the creation: the transactions that touched it, in chain order.
      expect([...new Set(body.history.map((h) => h.txid))], `${id}: history`).toEqual(touching);

      const { rows } = await readAllPages<{ txid: string }>(
        `${api}/api/nft-tx?id=${id}`,
        (b) => b['items'] as { txid: string }[],
      );
      const newestFirst = [...new Set(rows.map((r) => r.txid))];
      expect(newestFirst, `${id}: the transactions that touched it`).toEqual([...touching].reverse());
    }
  }, 600_000);

  it('lists every address’s NFTs as the devnet holds them: no item twice, melted items nowhere', async () => {
    const owners = new Map<string, string>();
    for (const address of Object.keys(world.wallets)) {
      const { status, body } = await getJson<{ nfts: { id: string; parent: string }[] }>(
        `${api}/api/address/${address}`,
      );
      expect(status, address).toBe(200);
      expect(body.nfts, address).toEqual(expectedNftHoldings(address, world));
      for (const n of body.nfts) {
        if (n.parent === '') continue;
        expect(owners.get(n.id), `${n.id} held by two addresses`).toBeUndefined();
        owners.set(n.id, address);
      }
    }
    for (const item of Object.values(world.mrc401s)) {
      if (item.owner === 'MELTED') expect(owners.has(item.id), `melted ${item.id} in a holding`).toBe(false);
      else expect(owners.get(item.id), item.id).toBe(item.owner);
    }
  }, 600_000);

  it('lists every collection and MRC-402 once, and finds each by its id', async () => {
    const { rows } = await readAllPages<{ id: string }>(`${api}/api/nfts`, (b) => b['items'] as { id: string }[]);
    expect(rows.map((r) => r.id).sort()).toEqual([...Object.keys(world.mrc400s), ...Object.keys(world.mrc402s)].sort());
    const [item] = Object.keys(world.mrc401s);
    for (const id of [Object.keys(world.mrc400s)[0]!, item!, Object.keys(world.mrc402s)[0]!])
      expect((await getJson(`${api}/api/search?q=${id}`)).body).toEqual({ redirect: `/nft/${id}/tx/1` });
  });

  it('holds an NFT market on chain: open MRC-402 orders and offered items, orders in every closed status, trades of every kind', () => {
    const head = marketAt(market, devnet.height());
    // The truth reads the chain as the chaincode keeps it: its last writes are the devnet's records.
    const state = devnet.worldState();
    for (const [id, record] of Object.entries({ ...state.dex402, ...state.mrc401s }))
      expect(head.records.get(id), id).toEqual(record);
    const census = marketCensus(head);
    console.info(`NFT market at the head: ${JSON.stringify(census)}`);
    // Items are on sale only briefly (the head may have none): the backfill's checks list them.
    const floors: Record<string, number> = {
      'MRC402 sell open': 10,
      'MRC402 auction open': 3,
      'MRC402 sell filled': 30,
      'MRC402 sell cancelled': 20,
      'MRC402 auction cancelled': 1,
      'MRC402 auction sold': 10,
      'MRC402 auction failed': 20,
      'MRC402 sale trades': 80,
      'MRC402 auction trades': 10,
      'MRC401 auction open': 10,
      'MRC401 sale trades': 80,
      'MRC401 auction trades': 10,
    };
    for (const [what, floor] of Object.entries(floors)) expect(census[what] ?? 0, what).toBeGreaterThanOrEqual(floor);
    // Offered items' auctions priced by their current bid as well as by their start price.
    const auctions = [...head.orders.values()].filter((o) => o.protocol === 'MRC401' && o.side === 'auction');
    expect(
      auctions.filter((o) => o.auction!.currentBidder === '' && o.price === o.auction!.startPrice).length,
    ).toBeGreaterThan(2);
    expect(
      auctions.filter((o) => o.auction!.currentBidder !== '' && o.price === o.auction!.currentPrice).length,
    ).toBeGreaterThan(2);
  });

  it('kept every market answer true at the height it named while the index backfilled', () => {
    const during = marketDuring!;
    console.info(
      `NFT market during the backfill: ${during.compared} answers compared at ${during.heights.size} heights, ${itemSalesDuring} item sales listed`,
    );
    expect(during.mismatches).toEqual([]);
    expect(itemSalesDuring, 'items on sale in the sell pages compared').toBeGreaterThan(0);
    expect(during.heights.size).toBeGreaterThanOrEqual(3);
  });

  it("serves every MRC-402's and collection's market as the chain holds it: stats, open orders of each side, trades by page, cursor and pay token", async () => {
    const assets = [...Object.keys(world.mrc402s), ...Object.keys(world.mrc400s)];
    const seen = await inBatches(assets, 6, (asset) => expectAssetMarket(api, market, asset));
    const head = marketAt(market, devnet.height());
    const nft = (p: Protocol) => p === 'MRC402' || p === 'MRC401';
    const open = [...head.orders.values()].filter((o) => nft(o.protocol) && o.status === 'open');
    // Each open order once in its asset's list of all sides and once in its side's; every trade once.
    expect(seen.reduce((s, c) => s + c.orders, 0)).toBe(2 * open.length);
    // Lists of more than 10 open orders were walked by cursors both ways too.
    const walked = seen.reduce((s, c) => s + c.walked, 0);
    console.info(`market: ${walked} open orders walked by cursors both ways`);
    expect(walked).toBeGreaterThan(0);
    expect(seen.reduce((s, c) => s + c.trades, 0)).toBe(head.trades.filter((t) => nft(t.trade.protocol)).length);
  }, 600_000);

  it('serves sampled MRC-402 orders by id in every status, offered items by id (404 once not offered), and open orders of sampled owners', async () => {
    const head = marketAt(market, devnet.height());
    const sample = sampleOrders(head, 4, ['MRC402', 'MRC401']);
    const groups = new Set(sample.map((o) => `${o.protocol} ${o.side} ${o.status}`));
    expect([...groups]).toEqual(
      expect.arrayContaining([
        'MRC401 auction open',
        'MRC402 auction cancelled',
        'MRC402 auction failed',
        'MRC402 auction open',
        'MRC402 auction sold',
        'MRC402 sell cancelled',
        'MRC402 sell filled',
        'MRC402 sell open',
      ]),
    );
    // Items not offered are no order: one last written by each job type that leaves an item idle.
    const idle = [...head.records.keys()].filter((id) => id.startsWith('MRC400_') && !head.orders.has(id));
    const lastTypes = [
      MRC400.itemCreate,
      MRC400.itemTransfer,
      MRC400.itemBuy,
      MRC400.itemUnsell,
      MRC400.itemUnauction,
      MRC400.itemAuctionwinning,
      MRC400.itemAuctionfailure,
      MRC400.itemMelt,
    ];
    const notOffered = lastTypes.map((type) => idle.find((id) => chain.lastType.get(id) === type));
    expect(notOffered.map((id) => id !== undefined)).toEqual(lastTypes.map(() => true));
    const answers = await inBatches([...sample.map((o) => o.id), ...notOffered.map((id) => id!)], 6, (id) =>
      expectOrder(api, market, id),
    );
    expect(answers.filter((a) => a === null).length).toBe(notOffered.length);
    // Owners of NFT orders: the five with the most open ones, and a few others.
    const busiest = busiestOwners(head, 5, ['MRC402', 'MRC401']);
    const others = Object.keys(world.wallets).filter((_, i) => i % 151 === 11);
    let listed = 0;
    for (const owner of [...busiest, ...others]) listed += await expectOpenOrders(api, market, { owner });
    // The busiest owner's orders by cursors both ways (newest first).
    expect(await expectOpenOrdersByCursor(api, market, { owner: busiest[0]! }, 7)).toBeGreaterThan(7);
    expect(listed).toBeGreaterThan(20);
    const top = busiest[0]!;
    const assets = [...head.orders.values()].filter((o) => o.owner === top && o.status === 'open').map((o) => o.asset);
    for (const asset of new Set(assets)) await expectOpenOrders(api, market, { asset, owner: top });
  }, 300_000);
});
