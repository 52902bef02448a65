import type { Devnet } from '@mtc/devnet';
import type { RawEntry } from '@mtc/domain';
import { expect } from 'vitest';
import { getJson } from './explorer-process.ts';

/**
 * What the fungible endpoints must serve, computed from the devnet's world state and its raw
 * chain — never from our decoder or projections — and the checks that walk the API against it.
 * The rules are the spec's plus the semantics our OpenAPI document states:
 * - an address's balance entry per token: `balance` = Σ of the token's entries (locked included),
 *   sale and auction amounts summed, locks = entries whose unlock date is after the API's clock;
 * - a holder = an address whose entries of the token have a non-zero balance, sale or auction
 *   amount; holders sorted by balance descending as integers, then by address;
 * - circulation supply = totalsupply − Σ of the owner's entries of the token (the node's rule).
 */
type Wallet = ReturnType<Devnet['worldState']>['wallets'][string];
type Token = ReturnType<Devnet['worldState']>['tokens'][string];

/** Chain amounts: "" and absent are 0; sale and auction escrow can go negative (a chaincode quirk). */
const big = (v: string | undefined): bigint => (v && /^-?[0-9]+$/.test(v) ? BigInt(v) : 0n);
const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export interface Lock {
  amount: string;
  unlockdate: number;
}

export interface Holding {
  token: number;
  balance: bigint;
  sale: bigint;
  auction: bigint;
  locks: Lock[];
}

/** An address's holdings by token, in ascending token id, as the chain holds them at `now`. */
export function holdingsOf(wallet: Wallet, now: number): Holding[] {
  const by = new Map<number, Holding>();
  for (const e of wallet.balance) {
    let h = by.get(e.token);
    if (!h) by.set(e.token, (h = { token: e.token, balance: 0n, sale: 0n, auction: 0n, locks: [] }));
    h.balance += big(e.balance);
    // Legacy entries have no sale/auction fields.
    h.sale += big('saleamount' in e ? e.saleamount : undefined);
    h.auction += big('auctionamount' in e ? e.auctionamount : undefined);
    if (e.unlockdate > now && big(e.balance) > 0n) h.locks.push({ amount: e.balance, unlockdate: e.unlockdate });
  }
  return [...by.values()].sort((a, b) => a.token - b.token);
}

const lockSum = (locks: readonly Lock[]): string => locks.reduce((s, l) => s + BigInt(l.amount), 0n).toString();

/** An address as /address/{id} serves it; `nfts` its NFT holdings (nft-truth.ts `expectedNftHoldings`). */
export function expectedAddress(
  address: string,
  wallet: Wallet,
  tokens: Record<string, Token>,
  now: number,
  nfts: readonly unknown[],
): unknown {
  return {
    address,
    regdate: wallet.regdate,
    addinfo: wallet.addinfo,
    balances: holdingsOf(wallet, now).map((h) => {
      const t = tokens[String(h.token)];
      return {
        tokenId: h.token,
        tokenName: t?.name ?? '',
        tokenSymbol: t?.symbol ?? '',
        decimal: t?.decimal ?? 0,
        image: t && t.image !== '' ? `/api/v1/token/${h.token}/image` : '',
        balance: h.balance.toString(),
        saleamount: h.sale.toString(),
        auctionamount: h.auction.toString(),
        lockBalance: lockSum(h.locks),
        locks: h.locks,
      };
    }),
    nfts,
  };
}

export interface ExpectedHolder {
  address: string;
  balance: string;
  token: number;
  lock_balance: string;
  unlockdate: number;
  locks: Lock[];
}

export function expectedHolders(
  wallets: Record<string, Wallet>,
  token: number,
  now: number,
): { holders: ExpectedHolder[]; total: bigint } {
  const rows: { h: Holding; address: string }[] = [];
  for (const [address, w] of Object.entries(wallets)) {
    const h = holdingsOf(w, now).find((x) => x.token === token);
    if (h && (h.balance !== 0n || h.sale !== 0n || h.auction !== 0n)) rows.push({ h, address });
  }
  rows.sort((a, b) =>
    a.h.balance === b.h.balance ? byteOrder(a.address, b.address) : a.h.balance > b.h.balance ? -1 : 1,
  );
  return {
    holders: rows.map(({ h, address }) => ({
      address,
      balance: h.balance.toString(),
      token,
      lock_balance: lockSum(h.locks),
      unlockdate: h.locks.reduce((m, l) => Math.max(m, l.unlockdate), 0),
      locks: h.locks,
    })),
    total: rows.reduce((s, r) => s + r.h.balance, 0n),
  };
}

export function circulation(token: Token, wallets: Record<string, Wallet>): string {
  const owner = wallets[token.owner];
  const held = owner
    ? owner.balance.filter((e) => e.token === token.token).reduce((s, e) => s + big(e.balance), 0n)
    : 0n;
  const c = big(token.totalsupply) - held;
  return (c > 0n ? c : 0n).toString();
}

export function expectedToken(token: Token, wallets: Record<string, Wallet>): Record<string, unknown> {
  return {
    id: String(token.token),
    token: token.token,
    name: token.name,
    symbol: token.symbol,
    type: token.type || '010',
    owner: token.owner,
    decimal: token.decimal,
    totalsupply: token.totalsupply,
    circulation_supply: circulation(token, wallets),
    remainamount: token.remainamount,
    burnningamount: token.burnningamount,
    hardcap: token.hardcap,
    softcap: token.softcap,
    url: token.url,
    information: token.information,
    image: token.image,
    status: token.status,
    createdate: token.createdate,
  };
}

/** Every valid entry of the chain, in chain order, with its block. */
export function* validEntries(devnet: Devnet): Generator<{ height: number; txId: string; entry: RawEntry }> {
  for (let h = 1; h <= devnet.height(); h++) {
    for (const t of devnet.block(h)!.transaction) {
      const entries = devnet.transaction(t.id)!;
      if (entries.some((e) => (e.validationCode ?? 0) !== 0)) continue;
      for (const entry of entries) yield { height: h, txId: t.id, entry };
    }
  }
}

const LIFECYCLE: Record<string, string> = {
  tokenRegister: 'create',
  token_reserve: 'reserve',
  tokenIncrease: 'mint',
  tokenBurning: 'burn',
};

const WALLET_KEY = /^MT[A-Za-z0-9]{38}$/;
const ITEM_KEY = /^MRC400_[0-9a-f]{32}[0-9]_[A-Za-z0-9]{40}$/;

/**
 * Per address: the tx ids of its activity, oldest first — one per write of its wallet, and one per
 * transaction that moved an MRC-401 item to or from it (the item's owner before and after, on
 * chain) without writing its wallet. Per token: its lifecycle events and transfers.
 */
export function chainIndex(devnet: Devnet): {
  addressTxs: Map<string, string[]>;
  lifecycle: Map<number, { txId: string; kind: string }[]>;
  transfers: Map<number, Set<string>>;
} {
  const addressTxs = new Map<string, string[]>();
  const lifecycle = new Map<number, { txId: string; kind: string }[]>();
  const transfers = new Map<number, Set<string>>();
  const itemState = new Map<string, { owner: string; offered: boolean }>();
  const add = (address: string, txId: string) => {
    const list = addressTxs.get(address) ?? [];
    list.push(txId);
    addressTxs.set(address, list);
  };
  let tx: { id: string; wallets: Set<string>; movers: Set<string> } | undefined;
  const closeTx = () => {
    if (!tx) return;
    for (const address of tx.movers) if (!tx.wallets.has(address)) add(address, tx.id);
  };
  for (const { txId, entry } of validEntries(devnet)) {
    if (tx?.id !== txId) {
      closeTx();
      tx = { id: txId, wallets: new Set(), movers: new Set() };
    }
    const key = entry.datakey ?? '';
    if (WALLET_KEY.test(key) && entry.values) {
      add(key, txId);
      tx.wallets.add(key);
    }
    if (ITEM_KEY.test(key) && entry.values) {
      // An item moved (its owner changed) or an offer of it closed unsold: its owners are parties.
      const before = itemState.get(key);
      const v = entry.values;
      const after = {
        owner: typeof v['owner'] === 'string' ? v['owner'] : '',
        offered: Number(v['sell_date'] ?? 0) > 0 || Number(v['auction_date'] ?? 0) > 0,
      };
      itemState.set(key, after);
      const closed = before?.offered === true && !after.offered;
      if (before?.owner !== after.owner || closed)
        for (const o of [before?.owner, after.owner]) if (o && WALLET_KEY.test(o)) tx.movers.add(o);
    }
    const kind = LIFECYCLE[entry.type];
    if (kind) {
      const p = entry.parameters;
      const tokenId =
        entry.type === 'token_reserve'
          ? Number((p as string[])[3])
          : Number(/^TOKEN_DATA_([0-9]+)$/.exec(key)?.[1] ?? NaN);
      if (Number.isSafeInteger(tokenId)) {
        const l = lifecycle.get(tokenId) ?? [];
        l.push({ txId, kind });
        lifecycle.set(tokenId, l);
      }
    }
    if (entry.type === 'transfer' && Array.isArray(entry.parameters)) {
      const tokenId = Number(entry.parameters[3]);
      const s = transfers.get(tokenId) ?? new Set<string>();
      s.add(txId);
      transfers.set(tokenId, s);
    }
  }
  closeTx();
  return { addressTxs, lifecycle, transfers };
}

/** Reads every page of a paged list (limit 100); checks each row comes once and the total holds. */
export async function readAllPages<T>(
  url: string,
  rowsOf: (body: Record<string, unknown>) => T[],
  limit = 100,
): Promise<{ rows: T[]; total: number; first: Record<string, unknown> }> {
  const rows: T[] = [];
  let total = -1;
  let first: Record<string, unknown> = {};
  for (let page = 1; ; page++) {
    const sep = url.includes('?') ? '&' : '?';
    const { status, body } = await getJson<Record<string, unknown>>(`${url}${sep}page=${page}&limit=${limit}`);
    expect(status, url).toBe(200);
    if (page === 1) {
      first = body;
      total = body['total'] as number;
    }
    const got = rowsOf(body);
    rows.push(...got);
    if (got.length < limit) break;
  }
  expect(rows.length, `${url}: rows across pages vs total`).toBe(total);
  return { rows, total, first };
}

/**
 * Every row of a list walked by its cursors: down from page 1 by `next`, then back up from the
 * last page by `prev` (at another page size, so the pages cut differently); both in list order.
 */
export async function readByCursors<T>(
  url: string,
  rowsOf: (body: Record<string, unknown>) => T[],
  limit = 100,
): Promise<{ down: T[]; up: T[] }> {
  type Page = Record<string, unknown> & { next: string | null; prev: string | null };
  const sep = url.includes('?') ? '&' : '?';
  const get = async (query: string): Promise<Page> => {
    const { status, body } = await getJson<Page>(`${url}${sep}${query}`);
    expect(status, `${url} ${query}`).toBe(200);
    return body;
  };
  const down: T[] = [];
  let body = await get(`limit=${limit}`);
  expect(body.prev, `${url}: prev of page 1`).toBeNull();
  for (let n = 0; ; n++) {
    down.push(...rowsOf(body));
    if (body.next === null) break;
    if (n > 100_000) throw new Error(`${url}: cursors never end`);
    body = await get(`limit=${limit}&cursor=${encodeURIComponent(body.next)}`);
  }
  const up: T[] = [];
  const back = Math.max(1, Math.floor(limit / 2) + 1);
  for (let n = 0; ; n++) {
    up.unshift(...rowsOf(body));
    if (body.prev === null) break;
    if (n > 100_000) throw new Error(`${url}: cursors never end`);
    body = await get(`limit=${back}&cursor=${encodeURIComponent(body.prev)}`);
  }
  return { down, up };
}
