import { parseAmount, collectionOfNft, type BalanceEntry } from '@mtc/domain';
import {
  addressTxs,
  ownedItemsOf,
  mrc402HoldingsOf,
  type Models,
  type AddressTxDoc,
  type NftCollectionDoc,
  type NftItemDoc,
  type TokenDoc,
  type WalletDoc,
} from '@mtc/read-models';
import { AddressActivityFilter, FILTERS_DOC, filteredSeries } from '../../activity-filter.ts';
import { whole } from '../../consistent.ts';
import { CURSOR_DOC, cursorPage, CursorQuery } from '../../cursor.ts';
import { notFound } from '../../errors.ts';
import { MAX_LIST_LIMIT, NewestFirstPaging } from '../../paging.ts';
import { AddressParams } from '../../params.ts';
import { defineRoute, linksTo } from '../../route.ts';
import { itemImage } from '../nfts/nfts.ts';
import { tokenImagePath } from '../tokens/tokens.ts';
import {
  Address,
  AddressTxsPage,
  type AddressActivity,
  MAX_ITEM_HOLDINGS,
  MAX_MRC402_HOLDINGS,
  type AddressBalance,
  type NftHolding,
} from './schemas.ts';

async function requireWallet(models: Models, address: string): Promise<WalletDoc> {
  const wallet = await models.wallets.get(address);
  if (!wallet) throw notFound(`address ${address} not found`);
  return wallet;
}

/** The tokens `ids` names, with one getMany. */
async function tokensById(models: Models, ids: Iterable<number>): Promise<Map<number, TokenDoc>> {
  const wanted = [...new Set(ids)].map(String);
  const docs = wanted.length > 0 ? await models.tokens.getMany(wanted) : [];
  return new Map(docs.map((d) => [d.token, d]));
}

/**
 * An amount of a balance entry as written. Balances are never negative, but escrow can be: the
 * chaincode's `mrc010unauction` lowers saleamount by what it returns from the auction
 * (metacoin-chain.md §7.4), and the entry keeps what it wrote. "" reads as 0.
 */
function escrowAmount(value: string): bigint {
  return value.startsWith('-') ? -parseAmount(value.slice(1)) : parseAmount(value);
}

/**
 * A wallet's MRC-010 balances, one per token it has entries of, ascending token id (the chain keeps
 * a wallet's token-0 entry even at zero, so token 0 is listed even when the wallet holds none).
 * `balance` sums every entry of the token, locked ones included; an entry is locked while its
 * unlock date is ahead of `now` (unix seconds), and `lockBalance`/`locks` are those entries (the
 * non-empty ones, as in the holder rows). Sale and auction escrow are apart from `balance`.
 */
export function walletBalances(
  balances: readonly BalanceEntry[],
  tokens: ReadonlyMap<number, TokenDoc>,
  now: number,
): AddressBalance[] {
  const byToken = new Map<number, BalanceEntry[]>();
  for (const e of balances) {
    const list = byToken.get(e.token);
    if (list) list.push(e);
    else byToken.set(e.token, [e]);
  }
  const sum = (entries: readonly BalanceEntry[], field: 'balance' | 'saleamount' | 'auctionamount') =>
    entries.reduce((total, e) => total + escrowAmount(e[field]), 0n).toString();
  return [...byToken.entries()]
    .sort(([a], [b]) => a - b)
    .map(([tokenId, entries]) => {
      const token = tokens.get(tokenId);
      const locked = entries.filter((e) => e.unlockdate > now && parseAmount(e.balance) > 0n);
      return {
        tokenId,
        tokenName: token?.name ?? '',
        tokenSymbol: token?.symbol ?? '',
        decimal: token?.decimal ?? 0,
        image: token?.hasImage ? tokenImagePath(tokenId) : '',
        balance: sum(entries, 'balance'),
        saleamount: sum(entries, 'saleamount'),
        auctionamount: sum(entries, 'auctionamount'),
        lockBalance: sum(locked, 'balance'),
        locks: locked.map((e) => ({ amount: e.balance, unlockdate: e.unlockdate })),
      };
    });
}

/** The collections `ids` names, with one getMany. */
async function collectionsById(models: Models, ids: Iterable<string>): Promise<Map<string, NftCollectionDoc>> {
  const wanted = [...new Set(ids)];
  const docs = wanted.length > 0 ? await models.nftCollections.getMany(wanted) : [];
  return new Map(docs.map((d) => [d._id, d]));
}

/** The MRC-401 items `address` owns (by collection, then item id; at most MAX_ITEM_HOLDINGS). */
async function ownedItems(models: Models, address: string): Promise<NftItemDoc[]> {
  return whole(await ownedItemsOf(models, address, MAX_ITEM_HOLDINGS), 'the list of items owned');
}

/**
 * A wallet's NFTs: its MRC-402 holdings as its wallet's `mrc402` map holds them (whole units,
 * ascending id; at most MAX_MRC402_HOLDINGS) — the very rows the wallet's write gives
 * /nft-holders —, then `items`, the MRC-401 items it owns. An item counts 1 in the amount its
 * state puts it in: on sale, in auction, else held (its owner keeps an offered item, as in
 * /nft-holders). Melted items belong to nobody.
 */
export async function nftHoldings(
  models: Models,
  wallet: WalletDoc,
  items: readonly NftItemDoc[],
): Promise<NftHolding[]> {
  const held = [...mrc402HoldingsOf(wallet._id, wallet.mrc402, wallet.pos).values()]
    .sort((a, b) => (a.nftId < b.nftId ? -1 : a.nftId > b.nftId ? 1 : 0))
    .slice(0, MAX_MRC402_HOLDINGS);
  const [tokens, collections] = await Promise.all([
    held.length > 0 ? models.mrc402s.getMany(held.map((h) => h.nftId)) : [],
    collectionsById(
      models,
      items.map((i) => i.mrc400),
    ),
  ]);
  const token = new Map(tokens.map((t) => [t._id, t]));
  return [
    ...held.map((h) => ({
      id: h.nftId,
      name: token.get(h.nftId)?.name ?? '',
      image: token.get(h.nftId)?.image ?? '',
      balance: h.balance,
      saleamount: h.saleamount,
      auctionamount: h.auctionamount,
      parent: '',
      parentName: '',
    })),
    ...items.map((item) => {
      const parent = collections.get(item.mrc400) ?? null;
      const state = item.sell_date > 0 ? 'sale' : item.auction_date > 0 ? 'auction' : 'held';
      return {
        id: item.id,
        name: parent?.name ?? '',
        image: itemImage(item, parent),
        balance: state === 'held' ? '1' : '0',
        saleamount: state === 'sale' ? '1' : '0',
        auctionamount: state === 'auction' ? '1' : '0',
        parent: item.mrc400,
        parentName: parent?.name ?? '',
      };
    }),
  ];
}

export const addressRoute = defineRoute({
  path: '/api/address/{id}',
  operationId: 'getAddress',
  tag: 'addresses',
  summary: 'A wallet: registration, memo, MRC-010 balances and NFTs',
  description: `balances has one entry per token the wallet has balance entries of (token 0 included at zero), ascending token id. balance sums the token's entries, locked ones included; saleamount and auctionamount are the DEX escrow, apart from balance; lockBalance and locks are the entries whose unlock date is still ahead now. nfts lists the wallet's MRC-402 holdings (whole units as its wallet holds them, ascending id, at most ${MAX_MRC402_HOLDINGS}), then the MRC-401 items it owns (by collection and item id, at most ${MAX_ITEM_HOLDINGS}; an item is 1 in balance, saleamount or auctionamount as it is held, on sale or in auction; melted items belong to nobody). 400 when the id is not of the address form; 404 when its checksum fails (no such address) or no such wallet is indexed.`,
  params: AddressParams,
  response: Address,
  errors: [400, 404],
  links: linksTo(['listAddressTxs'], { id: '$request.path.id' }),
  cache: 'head',
  async handle({ params }, app) {
    const [wallet, items] = await Promise.all([
      requireWallet(app.models, params.id),
      ownedItems(app.models, params.id),
    ]);
    const [tokens, nfts] = await Promise.all([
      tokensById(
        app.models,
        wallet.balances.map((b) => b.token),
      ),
      nftHoldings(app.models, wallet, items),
    ]);
    return {
      address: wallet._id,
      regdate: wallet.regdate,
      addinfo: wallet.addinfo,
      balances: walletBalances(wallet.balances, tokens, Math.floor(app.now() / 1000)),
      nfts,
    };
  },
});

/** Activity entries for an address's series rows (/address/{id}/txs, and the activity export). */
export async function toAddressActivity(models: Models, rows: readonly AddressTxDoc[]): Promise<AddressActivity[]> {
  const [tokens, collections] = await Promise.all([
    tokensById(
      models,
      rows.flatMap((r) => (r.tokenId === null ? [] : [r.tokenId])),
    ),
    collectionsById(
      models,
      rows.flatMap((r) => (r.nftId === null ? [] : (collectionOfNft(r.nftId) ?? []))),
    ),
  ]);
  return rows.map((r) => {
    const token = r.tokenId === null ? undefined : tokens.get(r.tokenId);
    const collection = r.nftId === null ? null : collectionOfNft(r.nftId);
    return {
      job_type: r.jobType,
      jobdate: r.jobdate,
      tx_id: r.txId,
      db_sn: String(r.height),
      summary: r.summary,
      from: r.from,
      to: r.to,
      amount: r.amount,
      ...(r.nftId === null ? {} : { nftId: r.nftId }),
      tokenName: token?.name ?? '',
      tokenSymbol: token?.symbol ?? '',
      parentName: (collection === null ? undefined : collections.get(collection)?.name) ?? '',
      tokenId: r.tokenId,
      kind: r.kind,
    };
  });
}

export const addressTxsRoute = defineRoute({
  path: '/api/address/{id}/txs',
  operationId: 'listAddressTxs',
  tag: 'addresses',
  summary: "A wallet's activity, newest first",
  description: `One entry per write of the wallet by a valid transaction, and one per valid transaction that moved an MRC-401 item to or from the address (or created it for it, or closed an offer of it unsold) without writing its wallet. NFT activity carries nftId and its collection's name in parentName. Rows are numbered per address when projected, so page p is one range of those numbers and total is a stored counter. ${FILTERS_DOC} ${CURSOR_DOC} limit is at most ${MAX_LIST_LIMIT}. 400 when the id is not of the address form; 404 when its checksum fails (no such address) or no such wallet is indexed.`,
  params: AddressParams,
  query: NewestFirstPaging.extend({ cursor: CursorQuery, ...AddressActivityFilter.shape }),
  response: AddressTxsPage,
  errors: [400, 404],
  cache: 'head',
  async handle({ params, query }, app) {
    const [, { list, total, window }] = await Promise.all([
      requireWallet(app.models, params.id),
      filteredSeries(app.models, app.models.addressTxs, addressTxs, params.id, query),
    ]);
    const { from, to, page, next, prev } = cursorPage(list.key, window, query);
    const rows = await list.rows({ from, to, newestFirst: true });
    return { total, page, limit: query.limit, data: await toAddressActivity(app.models, rows), next, prev };
  },
});
