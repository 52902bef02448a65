import { createHash } from 'node:crypto';
import {
  addressChecksum,
  decodeTransaction,
  formatAmount,
  parseAmount,
  PublishedWallets,
  SCHEMA_VERSION,
  toBlockEventV2,
  type BlockEvent,
  type BlockEventV1,
  type RawBlock,
  type RawEntry,
  type StateEvent,
  type TxSummary,
} from '@mtc/domain';
import { createLedger, type LedgerWrite, type Wallet } from '@mtc/devnet';

/**
 * A test chain as the follower would publish it. Each operation (`transfer`, `registerToken`,
 * `mint` …) is a call of the devnet's chaincode on the chain's world state, so what it writes is
 * what the real chain writes for that call; a block lists the calls' node entries as the node
 * serves them, and our decoder turns them into the block and state events. API tests seed the read
 * models by running the projections on these events (`projectChain` in harness.ts), so a read model
 * whose shape drifts from what the API reads fails the API's tests.
 *
 * Every call is committed when the operation runs, at the clock of the next block, so later calls
 * (of the same block too) see it. Tests name the collections and MRC-402s they create, whose ids
 * the chaincode derives from the call (see callNaming).
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
  /**
   * Listed as an MVCC conflict: its writes are served, and the decoder applies none of them (the
   * fixture's world has them already: operations commit when they run).
   */
  valid?: boolean;
  /** The write set of the chaincode call. */
  writes?: readonly LedgerWrite[];
  /** Entries served exactly like this instead (plus id and timestamp): odd entries the node may serve. */
  asIs?: readonly EntryInput[];
}

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

export interface Chain {
  /** Block events, in chain order, as on the follower's block topic. */
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
   * later (the block's time is not its transactions' time). Operations run at the next block's
   * default time (the peers' clock): a wallet's regdate, a token's createdate, whether a lock holds.
   */
  block(txs: readonly TxDraft[], options?: { timestamp?: number }): BlockEvent;
  /** Blocks up to `height` with no transactions. */
  emptyBlocksTo(height: number): void;

  /**
   * A wallet that exists before the first block of the fixture (no event: the chain's earlier past),
   * and the tokens it holds, registered then if the chain has not got them.
   */
  openWallet(addr: string, balances: readonly { token: number; balance: string; unlockdate?: number }[]): void;
  newWallet(addr: string, addinfo?: string): TxDraft;
  transfer(t: { from: string; to: string; amount: string; token: number; unlockdate?: number; memo?: string }): TxDraft;
  multiTransfer(t: { from: string; token: number; to: readonly { address: string; amount: string }[] }): TxDraft;
  /** Registers the token under the id asked for (the chain's token counter set just below it). */
  registerToken(t: TokenInput): TxDraft;
  mint(t: { token: number; amount: string; memo?: string }): TxDraft;
  burn(t: { token: number; amount: string; memo?: string }): TxDraft;
  updateToken(t: { token: number; url?: string; information?: string; image?: string }): TxDraft;
  /** An MRC-010 sell order, paid in `payToken` (default 0, which must differ from `token`). */
  sell(t: { seller: string; token: number; amount: string; price: string; payToken?: number }): TxDraft;
  /** An MRC-010 auction, paid in `payToken` (default 0), from now for the chaincode's default duration. */
  auction(t: { seller: string; token: number; amount: string; startPrice: string; payToken?: number }): TxDraft;
  /** Cancels the seller's oldest open auction of `token`. */
  unauction(t: { seller: string; token: number }): TxDraft;
  /** Entries no chaincode call of ours writes, served as given. */
  raw(entries: readonly EntryInput[]): TxDraft;

  /** An MRC-402 created: its whole supply in the creator's `mrc402` holdings. */
  createMrc402(t: { id: string; creator: string; name: string; totalsupply: string; image?: string }): TxDraft;
  /** MRC-402 units moved between wallets (`transfer_mrc402` / `receive_mrc402`). */
  transferMrc402(t: { id: string; from: string; to: string; amount: string }): TxDraft;
  /** An MRC-400 collection created by its owner; `itemImage` (default `image`) is its item image template. */
  createCollection(t: {
    id: string;
    owner: string;
    name: string;
    image: string;
    itemImage?: string;
    url?: string;
  }): TxDraft;
  /** MRC-401 items (full ids: the collection's, `_`, 40 characters) created by the collection's owner, without images. */
  createItems(t: { collection: string; owner: string; items: readonly string[] }): TxDraft;
  /** An MRC-401 item moved to another owner (`mrc401_transfer`; ownership lives in the item). */
  transferItem(t: { item: string; from: string; to: string }): TxDraft;
  /** An MRC-401 item put on sale by its owner (`mrc401_sell`; the owner keeps it while it is offered). */
  sellItem(t: { item: string; seller: string; price: string; token: number }): TxDraft;
  /** An MRC-401 item on sale bought at its price (`mrc401buy`): a trade of the market. */
  buyItem(t: { item: string; buyer: string }): TxDraft;
}

/** Fabric's TxValidationCode MVCC_READ_CONFLICT. */
const MVCC_READ_CONFLICT = 11;
/** A public key as a client sends it (the chaincode wants at least 40 characters). */
const PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----${'A'.repeat(40)}-----END PUBLIC KEY-----`;
const SIG = 'sig';
/** `n` arguments left empty: the optional ones a call does not use. */
const unset = (n: number): string[] => Array.from({ length: n }, () => '');
const TOKEN_MAX_NO = 'TOKEN_MAX_NO';

export function createChain(): Chain {
  const ledger = createLedger();
  const events: BlockEvent[] = [];
  /** Each block's transactions with their entries whole, as the node serves them. */
  const served = new Map<string, RawEntry[]>();
  const stateEvents: StateEvent[] = [];
  const published = new PublishedWallets();
  let seq = 0;
  /** The peers' clock for the next block: operations run before their block is cut. */
  let clock = GENESIS_TS + 60;

  const nextTime = (): number => (events.at(-1)?.timestamp ?? GENESIS_TS) + 60;

  const call = (fcn: string, args: readonly string[], draws: readonly string[] = []): TxDraft => ({
    writes: ledger.call(fcn, args, clock, { draws }),
  });

  /** The nonce a call signed by `addr` carries. */
  const nonce = (addr: string): string => {
    const w = ledger.wallet(addr);
    if (!w) throw new Error(`test chain: no wallet ${addr}`);
    return w.nonce;
  };

  const ownerOf = (token: number): string => {
    const t = ledger.token(token);
    if (!t) throw new Error(`test chain: no token ${token}`);
    return t.owner;
  };

  /** In key order, as Fabric orders a write set. */
  const sorted = (writes: LedgerWrite[]): LedgerWrite[] => writes.sort((a, b) => (a.key < b.key ? -1 : 1));

  /** tokenRegister with the token counter set so that the chaincode gives the token id `id`. */
  const register = (id: number, request: { owner: string } & Record<string, unknown>): TxDraft => {
    ledger.preset([{ key: TOKEN_MAX_NO, value: String(id - 1) }]);
    return call('tokenRegister', [JSON.stringify(request), SIG, nonce(request.owner)]);
  };

  /**
   * A call that creates a record under an id the chaincode derives from the call's arguments (md5
   * with a retry digit), committed under `id` instead, so that tests name their NFTs up front. The
   * derived id is renamed wherever the writes mention it, and a wallet's holdings are sorted again by
   * id, as Go writes a map.
   */
  const callNaming = (id: string, prefix: string, fcn: string, args: readonly string[]): TxDraft => {
    const made = ledger.call(fcn, args, clock, { commit: false });
    const derived = made.find((w) => w.key.startsWith(prefix))?.key;
    if (derived === undefined) throw new Error(`test chain: ${fcn} wrote no ${prefix} record`);
    const writes = sorted(
      made.map(({ key, value }) => {
        const renamed = JSON.parse(JSON.stringify(value).replaceAll(derived, id)) as Record<string, unknown>;
        const holdings = renamed['mrc402'];
        if (holdings && typeof holdings === 'object') {
          renamed['mrc402'] = Object.fromEntries(Object.entries(holdings).sort(([a], [b]) => (a < b ? -1 : 1)));
        }
        return { key: key === derived ? id : key, value: renamed };
      }),
    );
    ledger.preset(writes);
    return { writes };
  };

  // ------------------------------------------------------------ blocks

  const chain: Chain = {
    events,
    states: () => [...stateEvents],
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
      const entries = served.get(id);
      return entries ? structuredClone(entries) : null;
    },

    block(drafts, options = {}) {
      const height = chain.height + 1;
      const timestamp = options.timestamp ?? nextTime();
      const blockHash = hash(`block:${height}`);
      const firstTxSeq = seq;
      const txs = drafts.map((d, index) => {
        const id = d.id ?? hash(`tx:${height}:${index}`);
        const ts = timestamp + 10 * index + 10;
        const entries: RawEntry[] = d.asIs
          ? d.asIs.map((e) => ({ timestamp: ts, id, ...e }))
          : ledger.entries(
              {
                id,
                timestamp: ts,
                validationCode: (d.valid ?? true) ? 0 : MVCC_READ_CONFLICT,
                writes: d.writes ?? [],
              },
              { hash: blockHash, height },
            );
        served.set(id, entries);
        return decodeTransaction({ height, index, seq: firstTxSeq + index, id, timestamp: ts }, entries);
      });
      seq += txs.length;
      const decoded: BlockEventV1 = {
        schemaVersion: SCHEMA_VERSION,
        eventId: `block:${height}`,
        height,
        hash: blockHash,
        timestamp,
        firstTxSeq,
        txs,
      };
      for (const tx of txs) {
        for (const w of tx.writes) {
          stateEvents.push({ schemaVersion: SCHEMA_VERSION, eventId: `state:${w.pos}`, height, txId: tx.id, write: w });
        }
      }
      const event = published.toBlockEventV3(toBlockEventV2(decoded));
      events.push(event);
      clock = nextTime();
      return event;
    },

    emptyBlocksTo(height) {
      while (chain.height < height) chain.block([]);
    },

    openWallet(addr, balances) {
      const since = GENESIS_TS - 86_400;
      const wallet: Wallet = {
        id: addr,
        regdate: since,
        password: PUBLIC_KEY,
        addinfo: '',
        job_type: 'NewWallet',
        job_args: '',
        jobdate: since,
        balance: balances.map((b) => ({
          balance: b.balance,
          token: b.token,
          unlockdate: b.unlockdate ?? 0,
          saleamount: '',
          auctionamount: '',
        })),
        mrc010: null,
        mrc402: null,
        mrc800: null,
        pending: null,
        nonce: '',
      };
      ledger.preset([{ key: addr, value: wallet }]);
      for (const token of new Set(balances.map((b) => b.token))) {
        if (ledger.token(token)) continue;
        const supply = balances.filter((b) => b.token === token).reduce((sum, b) => sum + parseAmount(b.balance), 0n);
        register(token, {
          owner: addr,
          name: `Token ${token}`,
          symbol: `T${token}`,
          totalsupply: formatAmount(supply > 0n ? supply : 1n),
          decimal: 8,
          type: '010',
        });
      }
    },

    newWallet(addr, addinfo = '') {
      // The chaincode draws the address's 30 characters between `MT` and the checksum.
      return call('newwallet', [PUBLIC_KEY, addinfo], [addr.slice(2, 32)]);
    },

    transfer({ from, to, amount, token, unlockdate = 0, memo = '' }) {
      return call('transfer', [from, to, amount, String(token), SIG, String(unlockdate), '', memo, nonce(from)]);
    },

    multiTransfer({ from, token, to }) {
      const list = to.map((r) => ({ address: r.address, amount: r.amount, unlockdate: '0', tag: '', memo: '' }));
      return call('multitransfer', [from, JSON.stringify(list), String(token), SIG, nonce(from)]);
    },

    registerToken(t) {
      const reserve = (t.reserve ?? []).map((r) => ({ ...r, unlockdate: r.unlockdate ?? 0 }));
      const reserved = reserve.reduce((sum, r) => sum + parseAmount(r.value), 0n);
      const supply = parseAmount(t.totalsupply);
      return register(t.token, {
        owner: t.owner,
        symbol: t.symbol,
        name: t.name,
        totalsupply: t.totalsupply,
        reservedamount: formatAmount(reserved),
        remainamount: formatAmount(supply > reserved ? supply - reserved : 0n),
        burnningamount: '0',
        softcap: t.softcap ?? '0',
        hardcap: t.hardcap ?? '0',
        decimal: t.decimal ?? 8,
        url: t.url ?? '',
        information: t.information ?? '',
        image: t.image ?? '',
        reserve,
        tier: [],
        status: t.status ?? 'normal',
        type: t.type ?? '010',
      });
    },

    mint({ token, amount, memo = '' }) {
      return call('tokenIncrease', [String(token), amount, memo, SIG, nonce(ownerOf(token))]);
    },

    burn({ token, amount, memo = '' }) {
      return call('tokenBurning', [String(token), amount, memo, SIG, nonce(ownerOf(token))]);
    },

    updateToken({ token, url, information, image = '' }) {
      const t = ledger.token(token);
      if (!t) throw new Error(`test chain: no token ${token}`);
      return call('tokenUpdate', [
        String(token),
        url ?? t.url,
        information ?? t.information,
        image,
        SIG,
        nonce(t.owner),
      ]);
    },

    sell({ seller, token, amount, price, payToken = 0 }) {
      // Unset: the platform's name, URL, address and commission, and the minimum trade unit (1).
      const args = [seller, amount, String(token), price, String(payToken), ...unset(5), SIG, nonce(seller)];
      return call('mrc010sell', args);
    },

    auction({ seller, token, amount, startPrice, payToken = 0 }) {
      // No bidding unit, no buy-now price ("0"); start and end unset: from now, for the chaincode's
      // default duration; no platform.
      const args = [seller, amount, String(token), startPrice, String(payToken), '', '0', ...unset(6)];
      return call('mrc010auction', [...args, SIG, nonce(seller)]);
    },

    unauction({ seller, token }) {
      const order = ledger.openDex010('auction').find((o) => o.seller === seller && o.mrc010 === String(token));
      if (!order) throw new Error(`test chain: ${seller} has no open auction of token ${token}`);
      return call('mrc010unauction', [order.dexid, SIG, nonce(seller)]);
    },

    raw(entries) {
      return { asIs: entries };
    },

    createMrc402({ id, creator, name, totalsupply, image = `https://nft.example/${id}.png` }) {
      // No commission, decimal 0; no shareholders or reserve, no expiry ("0"), and none of the
      // optional texts (data, information, social media, copyright registration).
      const head = [creator, name, '0', totalsupply, '0', `https://nft.example/${id}`, image, '', '', '0'];
      return callNaming(id, 'MRC402_', 'mrc402create', [...head, ...unset(6), SIG, nonce(creator)]);
    },

    transferMrc402({ id, from, to, amount }) {
      return call('mrc402transfer', [from, to, amount, id, '', '', SIG, nonce(from)]);
    },

    createCollection({ id, owner, name, image, itemImage = image, url = `https://nft.example/${id}` }) {
      // Any token (allowtoken unset), no item URL; category art; no description, social media,
      // partners or data.
      const args = [owner, name, url, image, '', '', itemImage, 'art', ...unset(4), SIG, nonce(owner)];
      return callNaming(id, 'MRC400_', 'mrc400create', args);
    },

    createItems({ collection, owner, items }) {
      const data = items.map((item) => ({
        item_id: item.slice(collection.length + 1),
        item_url: '',
        item_image_url: '',
        groupid: collection,
        initial_reserve: '0',
        initial_token: '0',
        melting_fee: '0',
        transferable: 'Permanent',
        sell_fee: '0',
        shareholder: null,
      }));
      return call('mrc401create', [collection, owner, JSON.stringify(data), SIG, nonce(owner)]);
    },

    transferItem({ item, from, to }) {
      return call('mrc401transfer', [item, from, to, SIG, nonce(from)]);
    },

    sellItem({ item, seller, price, token }) {
      const list = [
        {
          id: item,
          amount: price,
          token: String(token),
          platform_name: '',
          platform_url: '',
          platform_address: '',
          platform_commission: '',
        },
      ];
      return call('mrc401sell', [seller, JSON.stringify(list), SIG, nonce(seller)]);
    },

    buyItem({ item, buyer }) {
      return call('mrc401buy', [buyer, item, SIG, nonce(buyer)]);
    },
  };
  return chain;
}
