import { createHash } from 'node:crypto';
import {
  addressChecksum,
  chainPos,
  formatAmount,
  MRC010,
  MRC400,
  MRC402,
  DEX010,
  parseAmount,
  BLOCKS_SCHEMA_VERSION,
  decodeCollection,
  decodeItem,
  decodeMrc402Record,
  isStateWrite,
  SCHEMA_VERSION,
  type BalanceEntry,
  type BlockEvent,
  type KnownActivity,
  type RawBlock,
  type RawEntry,
  type StateEvent,
  type StateWrite,
  type TokenState,
  type TxEvent,
  type TxSummary,
} from '@mtc/domain';

/**
 * A test chain written as the follower would publish it: block events (with each transaction's
 * node entries, state writes and typed activity) and the state events of their writes. API tests
 * seed the read models by running the projections on these events (`projectChain` in harness.ts),
 * so a read model whose shape drifts from what the API reads fails the API's tests.
 *
 * Operations (`transfer`, `registerToken`, `mint` …) keep a small ledger of wallets and tokens with
 * the chaincode's balance-array rules (metacoin-chain.md §3.1): one entry per (token, unlock date),
 * a new wallet starts with a zero token-0 entry, spending skips entries still locked at the
 * transaction's time, all-zero entries other than token 0 are removed, sale and auction escrow sit
 * on the token's unlock-date-0 entry. Each operation records the wallets and tokens as they are
 * right after it, which is what the chain writes.
 */

export const hash = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A valid Metacoin address (its CRC-32 checks) derived from `seed`. */
export function address(seed: string): string {
  const body = `${seed.replace(/[^A-Za-z0-9]/g, '')}${'x'.repeat(30)}`.slice(0, 30);
  return `MT${body}${addressChecksum(body)}`;
}

/**
 * `valid` with its last checksum character changed: of the address form (the OpenAPI document's
 * pattern accepts it) but naming no address, as its CRC-32 fails.
 */
export function badChecksum(valid: string): string {
  return `${valid.slice(0, -1)}${valid.endsWith('0') ? '1' : '0'}`;
}

export const GENESIS_TS = 1_700_000_000;

/** A transaction before it has a place in a block: positions are given when its block is cut. */
export interface TxDraft {
  /** Defaults to sha256(`tx:<height>:<index>`). */
  id?: string;
  valid?: boolean;
  summary: TxSummary;
  entries: EntryDraft[];
  activity: KnownActivity[];
}

interface EntryDraft {
  type: string;
  datakey: string;
  parameters: RawEntry['parameters'];
  token: string | number;
  /** The record as written (without job_type/jobdate, added from the transaction). */
  values: Record<string, unknown>;
  /** Served exactly like this (plus id and timestamp): for odd entries the node may serve. */
  asIs?: EntryInput;
  /** The normalised record, for the state write; none for an entry no projection models. */
  write?: WriteBody;
}

/** A state write without its key, position and job type (given when its block is cut). */
type WriteBody = StateWrite extends infer W
  ? W extends StateWrite
    ? Omit<W, 'key' | 'pos' | 'jobType'>
    : never
  : never;

/** A node entry without the transaction's id and time (a loose object: Omit would drop its keys). */
export type EntryInput = Pick<
  RawEntry,
  'parameters' | 'token' | 'type' | 'values' | 'validationCode' | 'address' | 'datakey' | 'db_id' | 'db_sn'
>;

export interface BlockView {
  height: number;
  hash: string;
  timestamp: number;
  txs: { id: string; timestamp: number }[];
}

export interface TxView {
  id: string;
  seq: number;
  height: number;
  index: number;
  timestamp: number;
  summary: TxSummary;
  entries: RawEntry[];
}

export interface TokenInput {
  token: number;
  name: string;
  symbol: string;
  owner: string;
  decimal?: number;
  totalsupply: string;
  /** Credited at registration (`token_reserve`), each with its own unlock date (0 = none). */
  reserve?: { address: string; value: string; unlockdate?: number }[];
  image?: string;
  url?: string;
  information?: string;
  softcap?: string;
  hardcap?: string;
  status?: string;
  type?: string;
}

interface WalletRecord {
  regdate: number;
  addinfo: string;
  balances: BalanceEntry[];
  /** MRC-402 holdings; null until the wallet first holds one (as the chaincode writes it). */
  mrc402: Record<string, { balance: string; saleamount: string; auctionamount: string }> | null;
}

export interface Chain {
  /** Block events, in chain order. */
  readonly events: BlockEvent[];
  /** The state events of every valid write, in chain order, as the follower publishes them. */
  states(): StateEvent[];
  readonly blocks: BlockView[];
  /** Every listed transaction, by seq. */
  readonly txs: TxView[];
  readonly height: number;
  readonly txCount: number;
  /** The node's `/block/{height|hash}` and `/transaction/{id}` answers. */
  rawBlock(id: string): RawBlock | null;
  rawTx(id: string): RawEntry[] | null;

  /**
   * Appends block `height + 1` holding `txs` (each operation below returns one). Its time is the
   * previous block's + 60 s (GENESIS_TS + 60 for block 1) unless given; transaction i is 10·(i + 1) s
   * later (the block's time is not its transactions' time). Operations read the clock as the next
   * block's default time: a wallet's regdate, a token's createdate, whether a lock still holds.
   */
  block(txs: readonly TxDraft[], options?: { timestamp?: number }): BlockEvent;
  /** Blocks up to `height` with no transactions. */
  emptyBlocksTo(height: number): void;

  /** A wallet that exists before the first block of the fixture (no event: the chain's earlier past). */
  openWallet(addr: string, balances: readonly { token: number; balance: string; unlockdate?: number }[]): void;
  newWallet(addr: string, addinfo?: string): TxDraft;
  transfer(t: { from: string; to: string; amount: string; token: number; unlockdate?: number; memo?: string }): TxDraft;
  multiTransfer(t: { from: string; token: number; to: readonly { address: string; amount: string }[] }): TxDraft;
  registerToken(t: TokenInput): TxDraft;
  mint(t: { token: number; amount: string; memo?: string }): TxDraft;
  burn(t: { token: number; amount: string; memo?: string }): TxDraft;
  updateToken(t: { token: number; url?: string; information?: string; image?: string }): TxDraft;
  /** An MRC-010 sell order: `amount` moves from the seller's balance into its sale escrow. */
  sell(t: { seller: string; token: number; amount: string; price: string }): TxDraft;
  /** An MRC-010 auction: `amount` moves from the seller's balance into its auction escrow. */
  auction(t: { seller: string; token: number; amount: string; startPrice: string }): TxDraft;
  /**
   * Cancels an auction the way the chaincode does (metacoin-chain.md §7.4): `amount` goes back to
   * the seller's balance but is taken from its saleamount, which may go negative, while
   * auctionamount stays as it was.
   */
  unauction(t: { seller: string; token: number; amount: string }): TxDraft;
  /** Entries no projection models, as given (with the transaction's summary). */
  raw(entries: readonly EntryInput[], summary?: TxSummary): TxDraft;

  /** An MRC-402 created: its whole supply in the creator's `mrc402` holdings. */
  createMrc402(t: { id: string; creator: string; name: string; totalsupply: string; image?: string }): TxDraft;
  /** MRC-402 units moved between wallets (`transfer_mrc402` / `receive_mrc402`). */
  transferMrc402(t: { id: string; from: string; to: string; amount: string }): TxDraft;
  /** An MRC-400 collection created by its owner. */
  createCollection(t: { id: string; owner: string; name: string; image?: string }): TxDraft;
  /** MRC-401 items created in a collection, owned by the collection's owner. */
  createItems(t: { collection: string; owner: string; items: readonly string[] }): TxDraft;
  /** An MRC-401 item moved to another owner (`mrc401_transfer`; ownership lives in the item). */
  transferItem(t: { item: string; from: string; to: string }): TxDraft;
  /** An MRC-401 item put on sale by its owner (`mrc401_sell`; the owner keeps it while it is offered). */
  sellItem(t: { item: string; seller: string; price: string; token: number }): TxDraft;
}

/** Escrow amounts as written: integers that may be negative (metacoin-chain.md §7.4). */
const signed = (value: string): bigint => BigInt(value === '' ? '0' : value);

const ZERO_SUMMARY: TxSummary = { type: '', from: '', to: '', amount: '0', token: '' };

export function createChain(): Chain {
  const events: BlockEvent[] = [];
  const wallets = new Map<string, WalletRecord>();
  const tokens = new Map<number, TokenState>();
  let seq = 0;
  /** The time operations see (the next block's default time): a draft has no block yet. */
  let clock = GENESIS_TS + 60;

  const nextTime = (): number => {
    const last = events.at(-1);
    return (last?.timestamp ?? GENESIS_TS) + 60;
  };

  // ------------------------------------------------------------ ledger

  const wallet = (addr: string): WalletRecord => {
    const w = wallets.get(addr);
    if (!w) throw new Error(`test chain: no wallet ${addr}`);
    return w;
  };

  const entryOf = (w: WalletRecord, token: number, unlockdate: number): BalanceEntry => {
    let e = w.balances.find((b) => b.token === token && b.unlockdate === unlockdate);
    if (!e) {
      e = { token, balance: '0', unlockdate, saleamount: '0', auctionamount: '0' };
      w.balances.push(e);
    }
    return e;
  };

  const prune = (w: WalletRecord): void => {
    w.balances = w.balances.filter(
      (b) =>
        b.token === 0 || parseAmount(b.balance) !== 0n || signed(b.saleamount) !== 0n || signed(b.auctionamount) !== 0n,
    );
  };

  const credit = (addr: string, token: number, amount: string, unlockdate = 0): void => {
    const w = wallet(addr);
    const e = entryOf(w, token, unlockdate);
    e.balance = formatAmount(parseAmount(e.balance) + parseAmount(amount));
  };

  /** Spends from the token's entries in wallet order, skipping those still locked at `clock`. */
  const debit = (addr: string, token: number, amount: string): void => {
    const w = wallet(addr);
    let left = parseAmount(amount);
    for (const e of w.balances) {
      if (left === 0n) break;
      if (e.token !== token || e.unlockdate > clock) continue;
      const take = parseAmount(e.balance) < left ? parseAmount(e.balance) : left;
      e.balance = formatAmount(parseAmount(e.balance) - take);
      left -= take;
    }
    if (left > 0n) throw new Error(`test chain: ${addr} cannot spend ${amount} of token ${token}`);
    prune(w);
  };

  const escrow = (addr: string, token: number, amount: string, field: 'saleamount' | 'auctionamount'): void => {
    debit(addr, token, amount);
    const e = entryOf(wallet(addr), token, 0);
    e[field] = (signed(e[field]) + parseAmount(amount)).toString();
  };

  const token = (id: number): TokenState => {
    const t = tokens.get(id);
    if (!t) throw new Error(`test chain: no token ${id}`);
    return t;
  };

  // ------------------------------------------------------------ entries

  const walletEntry = (addr: string, type: string, parameters: RawEntry['parameters']): EntryDraft => {
    const w = wallet(addr);
    const balances = w.balances.map((b) => ({ ...b }));
    const mrc402 = w.mrc402 && structuredClone(w.mrc402);
    return {
      type,
      datakey: addr,
      parameters,
      token: '',
      values: {
        id: addr,
        regdate: w.regdate,
        password: '',
        addinfo: w.addinfo,
        job_args: '',
        balance: balances.map((b) => ({ ...b })),
        mrc402: mrc402 && structuredClone(mrc402),
        nonce: '',
      },
      write: {
        kind: 'wallet',
        wallet: { address: addr, regdate: w.regdate, addinfo: w.addinfo, balances, mrc402 },
      },
    };
  };

  const tokenEntry = (id: number, type: string, parameters: RawEntry['parameters']): EntryDraft => {
    const t = { ...token(id) };
    // The bridge serves a token record's `token` field renamed to `balance` (decodeToken).
    const { token: tokenId, ...fields } = t;
    return {
      type,
      datakey: `TOKEN_DATA_${id}`,
      parameters,
      token: id,
      values: { ...fields, balance: tokenId },
      write: { kind: 'token', token: t },
    };
  };

  /** A record other than a wallet or token (NFTs), written whole, with its normalised state write. */
  const recordEntry = (
    key: string,
    type: string,
    parameters: RawEntry['parameters'],
    values: Record<string, unknown>,
    write: WriteBody,
  ): EntryDraft => ({ type, datakey: key, parameters, token: '', values, write });

  const payment = (from: string, to: string, amount: string, tokenId: number, unlockdate: number, memo: string) => [
    from,
    to,
    amount,
    String(tokenId),
    'sig',
    String(unlockdate),
    '',
    memo,
    'nonce',
  ];

  // ------------------------------------------------------------ blocks

  const chain: Chain = {
    events,
    states() {
      return events.flatMap((b) =>
        b.txs.flatMap((tx) =>
          tx.writes.filter(isStateWrite).map((write): StateEvent => ({
            schemaVersion: SCHEMA_VERSION,
            eventId: `state:${write.pos}`,
            height: b.height,
            txId: tx.id,
            write,
          })),
        ),
      );
    },
    get blocks() {
      return events.map((b) => ({
        height: b.height,
        hash: b.hash,
        timestamp: b.timestamp,
        txs: b.txs.map((t) => ({ id: t.id, timestamp: t.timestamp })),
      }));
    },
    get txs() {
      return events.flatMap((b) =>
        b.txs.map((t) => ({
          id: t.id,
          seq: t.seq,
          height: b.height,
          index: t.index,
          timestamp: t.timestamp,
          summary: t.summary,
          entries: t.entries,
        })),
      );
    },
    get height() {
      return events.at(-1)?.height ?? 0;
    },
    get txCount() {
      return seq;
    },
    rawBlock(id) {
      const b = events.find((e) => String(e.height) === id || e.hash === id);
      if (!b) return null;
      return {
        id: b.hash,
        sn: String(b.height),
        timestamp: b.timestamp,
        transaction: b.txs.map((t) => ({ id: t.id, timestamp: t.timestamp })),
      };
    },
    rawTx(id) {
      for (const b of events) for (const t of b.txs) if (t.id === id) return structuredClone(t.entries);
      return null;
    },

    block(drafts, options = {}) {
      const height = chain.height + 1;
      const timestamp = options.timestamp ?? nextTime();
      const blockHash = hash(`block:${height}`);
      const firstTxSeq = seq;
      const txs = drafts.map((d, index): TxEvent => {
        const id = d.id ?? hash(`tx:${height}:${index}`);
        const ts = timestamp + 10 * index + 10;
        const valid = d.valid ?? true;
        const entries: RawEntry[] = d.entries.map((e) =>
          e.asIs
            ? { timestamp: ts, id, ...e.asIs }
            : {
                timestamp: ts,
                id,
                parameters: e.parameters,
                token: e.token,
                type: e.type,
                values: { ...e.values, job_type: e.type, jobdate: ts },
                validationCode: valid ? 0 : 11,
                address: e.datakey,
                datakey: e.datakey,
                db_id: blockHash,
                db_sn: String(height),
              },
        );
        const writes: StateWrite[] = valid
          ? d.entries.flatMap((e, i): StateWrite[] => {
              if (!e.write) return [];
              const base = { key: e.datakey, pos: chainPos(height, index, i), jobType: e.type };
              return [{ ...base, ...e.write }];
            })
          : [];
        return {
          id,
          index,
          seq: seq++,
          timestamp: ts,
          valid,
          summary: d.summary,
          entries,
          writes,
          activity: valid ? d.activity : [],
        };
      });
      const event: BlockEvent = {
        schemaVersion: BLOCKS_SCHEMA_VERSION,
        eventId: `block:${height}`,
        height,
        hash: blockHash,
        timestamp,
        firstTxSeq,
        txs,
      };
      events.push(event);
      clock = nextTime();
      return event;
    },

    emptyBlocksTo(height) {
      while (chain.height < height) chain.block([]);
    },

    openWallet(addr, balances) {
      wallets.set(addr, {
        regdate: GENESIS_TS - 86_400,
        addinfo: '',
        mrc402: null,
        balances: balances.map((b) => ({
          token: b.token,
          balance: b.balance,
          unlockdate: b.unlockdate ?? 0,
          saleamount: '0',
          auctionamount: '0',
        })),
      });
    },

    newWallet(addr, addinfo = '') {
      wallets.set(addr, {
        regdate: clock,
        addinfo,
        mrc402: null,
        balances: [{ token: 0, balance: '0', unlockdate: 0, saleamount: '0', auctionamount: '0' }],
      });
      return {
        summary: { type: MRC010.newWallet, from: '', to: addr, amount: '0', token: '0' },
        entries: [walletEntry(addr, MRC010.newWallet, [addr, 'public key', addinfo])],
        activity: [{ kind: 'walletCreate', jobType: MRC010.newWallet, address: addr }],
      };
    },

    transfer({ from, to, amount, token: tokenId, unlockdate = 0, memo = '' }) {
      debit(from, tokenId, amount);
      credit(to, tokenId, amount, unlockdate);
      const p = payment(from, to, amount, tokenId, unlockdate, memo);
      return {
        summary: { type: MRC010.transfer, from, to, amount, token: String(tokenId) },
        // As the node lists them: reverse key order, receiver first.
        entries: [walletEntry(to, MRC010.receive, p), walletEntry(from, MRC010.transfer, p)],
        activity: [
          { kind: 'transfer', jobType: MRC010.transfer, from, to, amount, tokenId, unlockdate, tag: '', memo },
        ],
      };
    },

    multiTransfer({ from, token: tokenId, to }) {
      let total = 0n;
      const entries: EntryDraft[] = [];
      const activity: KnownActivity[] = [];
      for (const r of to) {
        debit(from, tokenId, r.amount);
        credit(r.address, tokenId, r.amount);
        total += parseAmount(r.amount);
        entries.push(walletEntry(r.address, MRC010.receive, payment(from, r.address, r.amount, tokenId, 0, '')));
        activity.push({
          kind: 'transfer',
          jobType: MRC010.multiTransfer,
          from,
          to: r.address,
          amount: r.amount,
          tokenId,
          unlockdate: 0,
          tag: '',
          memo: '',
        });
      }
      const list = JSON.stringify(to.map((r) => ({ address: r.address, amount: r.amount, unlockdate: '0' })));
      entries.push(walletEntry(from, MRC010.multiTransfer, [from, list, String(tokenId), 'sig', 'nonce']));
      return {
        summary: {
          type: MRC010.multiTransfer,
          from,
          to: to[0]?.address ?? '',
          amount: formatAmount(total),
          token: String(tokenId),
        },
        entries,
        activity,
      };
    },

    registerToken(t) {
      const reserve = (t.reserve ?? []).map((r) => ({ ...r, unlockdate: r.unlockdate ?? 0 }));
      const reserved = reserve.reduce((sum, r) => sum + parseAmount(r.value), 0n);
      const state: TokenState = {
        token: t.token,
        id: String(t.token),
        owner: t.owner,
        name: t.name,
        symbol: t.symbol,
        type: t.type ?? '010',
        decimal: t.decimal ?? 8,
        createdate: clock,
        totalsupply: t.totalsupply,
        reservedamount: formatAmount(reserved),
        // A record may reserve more than its supply (tests of inconsistent data): remain stays ≥ 0.
        remainamount: formatAmount(parseAmount(t.totalsupply) > reserved ? parseAmount(t.totalsupply) - reserved : 0n),
        burnningamount: '0',
        softcap: t.softcap ?? '0',
        hardcap: t.hardcap ?? '0',
        url: t.url ?? '',
        information: t.information ?? '',
        image: t.image ?? '',
        status: t.status ?? 'normal',
      };
      tokens.set(t.token, state);
      const { image: _image, ...registered } = state;
      const entries: EntryDraft[] = [tokenEntry(t.token, MRC010.tokenRegister, { ...registered, reserve })];
      const activity: KnownActivity[] = [
        {
          kind: 'tokenCreate',
          jobType: MRC010.tokenRegister,
          tokenId: t.token,
          owner: t.owner,
          totalsupply: t.totalsupply,
          name: t.name,
          symbol: t.symbol,
          decimal: state.decimal,
        },
      ];
      for (const r of reserve) {
        credit(r.address, t.token, r.value, r.unlockdate);
        entries.push(walletEntry(r.address, MRC010.tokenReserve, [t.owner, r.address, r.value, String(t.token)]));
        activity.push({
          kind: 'tokenReserve',
          jobType: MRC010.tokenReserve,
          tokenId: t.token,
          from: t.owner,
          to: r.address,
          amount: r.value,
          unlockdate: r.unlockdate,
        });
      }
      return {
        summary: { type: MRC010.tokenRegister, from: t.owner, to: '', amount: t.totalsupply, token: String(t.token) },
        entries,
        activity,
      };
    },

    mint({ token: id, amount, memo = '' }) {
      const t = token(id);
      t.totalsupply = formatAmount(parseAmount(t.totalsupply) + parseAmount(amount));
      credit(t.owner, id, amount);
      const p = [String(id), amount, memo, 'sig', 'nonce'];
      return {
        summary: { type: MRC010.tokenIncrease, from: t.owner, to: t.owner, amount, token: String(id) },
        entries: [tokenEntry(id, MRC010.tokenIncrease, p), walletEntry(t.owner, MRC010.ownerIncrease, p)],
        activity: [{ kind: 'tokenMint', jobType: MRC010.tokenIncrease, tokenId: id, owner: t.owner, amount, memo }],
      };
    },

    burn({ token: id, amount, memo = '' }) {
      const t = token(id);
      t.burnningamount = formatAmount(parseAmount(t.burnningamount) + parseAmount(amount));
      debit(t.owner, id, amount);
      const p = [String(id), amount, memo, 'sig', 'nonce'];
      return {
        summary: { type: MRC010.tokenBurning, from: t.owner, to: '', amount, token: String(id) },
        entries: [tokenEntry(id, MRC010.tokenBurning, p), walletEntry(t.owner, MRC010.ownerBurning, p)],
        activity: [{ kind: 'tokenBurn', jobType: MRC010.tokenBurning, tokenId: id, owner: t.owner, amount, memo }],
      };
    },

    updateToken({ token: id, url, information, image }) {
      const t = token(id);
      if (url !== undefined) t.url = url;
      if (information !== undefined) t.information = information;
      if (image !== undefined && image !== '') t.image = image;
      return {
        summary: { type: MRC010.tokenUpdate, from: t.owner, to: '', amount: '0', token: String(id) },
        entries: [tokenEntry(id, MRC010.tokenUpdate, [String(id), t.url, t.information, image ?? '', 'sig', 'nonce'])],
        activity: [
          {
            kind: 'tokenUpdate',
            jobType: MRC010.tokenUpdate,
            tokenId: id,
            owner: t.owner,
            url: t.url,
            information: t.information,
            imageChanged: image !== undefined && image !== '',
          },
        ],
      };
    },

    sell({ seller, token: id, amount, price }) {
      escrow(seller, id, amount, 'saleamount');
      const dexId = `DEX010_${hash(`sell:${seller}:${id}:${seq}`).slice(0, 32)}0`;
      return {
        summary: { type: DEX010.walletSell, from: seller, to: '', amount, token: String(id) },
        entries: [walletEntry(seller, DEX010.walletSell, [dexId, seller, amount, String(id), price, '0'])],
        activity: [
          {
            kind: 'sell',
            jobType: DEX010.walletSell,
            dexId,
            tokenId: id,
            seller,
            amount,
            price,
            payToken: 0,
            minTradeUnit: '1',
          },
        ],
      };
    },

    auction({ seller, token: id, amount, startPrice }) {
      escrow(seller, id, amount, 'auctionamount');
      const dexId = `DEX010_${hash(`auction:${seller}:${id}:${seq}`).slice(0, 32)}0`;
      return {
        summary: { type: DEX010.walletAuction, from: seller, to: '', amount, token: String(id) },
        entries: [walletEntry(seller, DEX010.walletAuction, [dexId, seller, amount, String(id), startPrice, '0'])],
        activity: [
          {
            kind: 'auction',
            jobType: DEX010.walletAuction,
            dexId,
            tokenId: id,
            seller,
            amount,
            startPrice,
            buyNowPrice: '0',
            payToken: 0,
            startDate: clock,
            endDate: clock + 86_400,
          },
        ],
      };
    },

    unauction({ seller, token: id, amount }) {
      credit(seller, id, amount);
      const e = entryOf(wallet(seller), id, 0);
      e.saleamount = (signed(e.saleamount) - parseAmount(amount)).toString();
      const dexId = `DEX010_${hash(`unauction:${seller}:${id}:${seq}`).slice(0, 32)}0`;
      return {
        summary: { type: DEX010.walletUnauction, from: seller, to: '', amount, token: String(id) },
        entries: [walletEntry(seller, DEX010.walletUnauction, [dexId, seller, amount, String(id), 'sig', 'nonce'])],
        activity: [{ kind: 'auctionCancel', jobType: DEX010.walletUnauction, dexId, tokenId: id, seller, amount }],
      };
    },

    raw(entries, summary = ZERO_SUMMARY) {
      return {
        summary,
        entries: entries.map((e) => ({
          type: e.type,
          datakey: e.datakey ?? '',
          parameters: e.parameters,
          token: e.token,
          values: e.values ?? {},
          asIs: e,
        })),
        activity: [],
      };
    },

    createMrc402({ id, creator, name, totalsupply, image = '' }) {
      const values = { id, creator, totalsupply, meltedamount: '0', decimal: 0, name, expiredate: 0, image };
      const w = wallet(creator);
      w.mrc402 = { ...w.mrc402, [id]: { balance: totalsupply, saleamount: '0', auctionamount: '0' } };
      const p = [id, creator, name, '0', totalsupply];
      return {
        summary: { type: MRC402.walletCreate, from: creator, to: '', amount: totalsupply, token: '' },
        entries: [
          recordEntry(id, MRC402.create, p, values, { kind: 'mrc402', mrc402: decodeMrc402Record(id, values) }),
          walletEntry(creator, MRC402.walletCreate, p),
        ],
        activity: [
          {
            kind: 'nftCreate',
            jobType: MRC402.create,
            protocol: 'MRC402',
            nftId: id,
            owner: creator,
            creator,
            amount: totalsupply,
            name,
            parent: '',
          },
        ],
      };
    },

    transferMrc402({ id, from, to, amount }) {
      const move = (addr: string, delta: bigint) => {
        const w = wallet(addr);
        const held = w.mrc402?.[id] ?? { balance: '0', saleamount: '0', auctionamount: '0' };
        const balance = parseAmount(held.balance) + delta;
        if (balance < 0n) throw new Error(`test chain: ${addr} cannot send ${amount} of ${id}`);
        w.mrc402 = { ...w.mrc402, [id]: { ...held, balance: balance.toString() } };
      };
      move(from, -parseAmount(amount));
      move(to, parseAmount(amount));
      const p = [from, to, amount, id, '', '', 'sig', 'nonce'];
      return {
        summary: { type: MRC402.transfer, from, to, amount, token: '' },
        entries: [walletEntry(to, MRC402.receive, p), walletEntry(from, MRC402.transfer, p)],
        activity: [{ kind: 'nftTransfer', jobType: MRC402.transfer, protocol: 'MRC402', nftId: id, from, to, amount }],
      };
    },

    createCollection({ id, owner, name, image = '' }) {
      const values = { id, owner, createdate: clock, name, image_url: image, item_image_url: image, category: 'art' };
      const p = [id, owner, name];
      return {
        summary: { type: MRC400.walletCreate, from: owner, to: '', amount: '0', token: '' },
        entries: [
          recordEntry(id, MRC400.create, p, values, {
            kind: 'nftCollection',
            collection: decodeCollection(id, values),
          }),
          walletEntry(owner, MRC400.walletCreate, p),
        ],
        activity: [
          {
            kind: 'nftCreate',
            jobType: MRC400.create,
            protocol: 'MRC400',
            nftId: id,
            owner,
            creator: owner,
            amount: '0',
            name,
            parent: '',
          },
        ],
      };
    },

    createItems({ collection, owner, items }) {
      const entries = items.map((item) => {
        const values = {
          id: item,
          mrc400: collection,
          owner,
          creator: owner,
          createdate: clock,
          transferable: 'Permanent',
        };
        return recordEntry(item, MRC400.itemCreate, [item, owner, '0', '0'], values, {
          kind: 'nftItem',
          item: decodeItem(item, values),
        });
      });
      return {
        summary: { type: MRC400.itemCreate, from: owner, to: '', amount: String(items.length), token: '' },
        entries: [...entries, walletEntry(owner, MRC400.walletItemCreate, [collection, owner, '[]'])],
        activity: items.map((item): KnownActivity => ({
          kind: 'nftCreate',
          jobType: MRC400.itemCreate,
          protocol: 'MRC401',
          nftId: item,
          owner,
          creator: owner,
          amount: '1',
          name: '',
          parent: collection,
        })),
      };
    },

    transferItem({ item, from, to }) {
      const values = { id: item, mrc400: item.slice(0, 40), owner: to, creator: from, transferable: 'Permanent' };
      const p = [item, from, to, 'sig', 'nonce'];
      return {
        summary: { type: MRC400.itemTransfer, from, to, amount: '1', token: '' },
        entries: [
          recordEntry(item, MRC400.itemTransfer, p, values, { kind: 'nftItem', item: decodeItem(item, values) }),
          walletEntry(from, MRC400.walletItemTransfer, p),
        ],
        activity: [
          { kind: 'nftTransfer', jobType: MRC400.itemTransfer, protocol: 'MRC401', nftId: item, from, to, amount: '1' },
        ],
      };
    },

    sellItem({ item, seller, price, token }) {
      const values = {
        id: item,
        mrc400: item.slice(0, 40),
        owner: seller,
        creator: seller,
        transferable: 'Permanent',
        sell_date: clock,
        sell_price: price,
        sell_token: String(token),
      };
      // The item's job_args name it and the seller; the seller's wallet write lists the items offered.
      const p = [item, seller, price, String(token)];
      const listed = [JSON.stringify([{ id: item, amount: price, token: String(token) }]), seller];
      return {
        summary: { type: MRC400.itemSell, from: seller, to: '', amount: '1', token: String(token) },
        entries: [
          recordEntry(item, MRC400.itemSell, p, values, { kind: 'nftItem', item: decodeItem(item, values) }),
          walletEntry(seller, MRC400.walletItemSell, listed),
        ],
        activity: [
          {
            kind: 'nftSell',
            jobType: MRC400.itemSell,
            protocol: 'MRC401',
            nftId: item,
            dexId: item,
            seller,
            amount: '1',
            price,
            payToken: token,
          },
        ],
      };
    },
  };
  return chain;
}
