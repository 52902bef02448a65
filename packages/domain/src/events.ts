import { z } from 'zod';
import { RawEntry } from './node.ts';

/**
 * The events the follower publishes and projectors consume: the topic contract (docs/topics.md).
 * Event-carried state: a state write carries the record as the chain wrote it (normalised), so a
 * projection is last-write-wins by chain position and never recomputes balances.
 * Amounts are integer strings; ids are plain strings here (validated where they enter: the node).
 */
export const SCHEMA_VERSION = 1;

const amount = z.string().regex(/^(0|[1-9][0-9]*)$/);

export const BalanceEntry = z.object({
  token: z.number().int().nonnegative(),
  balance: amount,
  unlockdate: z.number().int().nonnegative(),
  saleamount: amount,
  auctionamount: amount,
});
export type BalanceEntry = z.infer<typeof BalanceEntry>;

export const Mrc402Holding = z.object({ balance: amount, saleamount: amount, auctionamount: amount });

export const WalletState = z.object({
  address: z.string(),
  regdate: z.number().int(),
  addinfo: z.string(),
  balances: z.array(BalanceEntry),
  mrc402: z.record(z.string(), Mrc402Holding).nullable(),
});
export type WalletState = z.infer<typeof WalletState>;

export const TokenState = z.object({
  token: z.number().int().nonnegative(),
  id: z.string(),
  owner: z.string(),
  name: z.string(),
  symbol: z.string(),
  type: z.string(),
  decimal: z.number().int(),
  createdate: z.number().int(),
  totalsupply: amount,
  reservedamount: amount,
  remainamount: amount,
  burnningamount: amount,
  softcap: z.string(),
  hardcap: z.string(),
  url: z.string(),
  information: z.string(),
  image: z.string(),
  status: z.string(),
});
export type TokenState = z.infer<typeof TokenState>;

/** A valid state write, with the written record normalised. */
export const StateWrite = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('wallet'), key: z.string(), pos: z.string(), jobType: z.string(), wallet: WalletState }),
  z.object({ kind: z.literal('token'), key: z.string(), pos: z.string(), jobType: z.string(), token: TokenState }),
  /** Records of kinds the projections do not model yet (NFTs, DEX orders …), kept as written. */
  z.object({
    kind: z.literal('other'),
    key: z.string(),
    pos: z.string(),
    jobType: z.string(),
    values: z.record(z.string(), z.unknown()),
  }),
]);
export type StateWrite = z.infer<typeof StateWrite>;

/** What a transaction did, in business terms (valid transactions only). */
export const Activity = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('transfer'),
    jobType: z.string(),
    from: z.string(),
    to: z.string(),
    amount,
    tokenId: z.number().int().nonnegative(),
    unlockdate: z.number().int().nonnegative(),
    tag: z.string(),
    memo: z.string(),
  }),
  z.object({
    kind: z.literal('tokenCreate'),
    tokenId: z.number().int().nonnegative(),
    owner: z.string(),
    totalsupply: amount,
  }),
  z.object({
    kind: z.literal('tokenReserve'),
    tokenId: z.number().int().nonnegative(),
    from: z.string(),
    to: z.string(),
    amount,
    unlockdate: z.number().int().nonnegative(),
  }),
  z.object({
    kind: z.literal('tokenMint'),
    tokenId: z.number().int().nonnegative(),
    owner: z.string(),
    amount,
    memo: z.string(),
  }),
  z.object({
    kind: z.literal('tokenBurn'),
    tokenId: z.number().int().nonnegative(),
    owner: z.string(),
    amount,
    memo: z.string(),
  }),
  z.object({ kind: z.literal('walletCreate'), address: z.string() }),
]);
export type Activity = z.infer<typeof Activity>;

/** The one-line view of a transaction that lists show. */
export const TxSummary = z.object({
  type: z.string(),
  from: z.string(),
  to: z.string(),
  amount,
  token: z.string(),
});
export type TxSummary = z.infer<typeof TxSummary>;

export const TxEvent = z.object({
  id: z.string(),
  index: z.number().int().nonnegative(),
  /** Position of the transaction among all listed transactions of the chain, from 0. */
  seq: z.number().int().nonnegative(),
  timestamp: z.number().int(),
  valid: z.boolean(),
  summary: TxSummary,
  entries: z.array(RawEntry),
  writes: z.array(StateWrite),
  activity: z.array(Activity),
});
export type TxEvent = z.infer<typeof TxEvent>;

/** Topic `mtc.blocks.v1`, key = height: one message per block, in chain order. */
export const BlockEvent = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  eventId: z.string(),
  height: z.number().int().positive(),
  hash: z.string(),
  timestamp: z.number().int(),
  /** `seq` of this block's first listed transaction (= number of transactions before it). */
  firstTxSeq: z.number().int().nonnegative(),
  txs: z.array(TxEvent),
});
export type BlockEvent = z.infer<typeof BlockEvent>;

/**
 * Topic `mtc.state.v1`, key = the state key (address, TOKEN_DATA_n, …): one message per valid state
 * write, so that per-entity order holds within a partition and projectors scale by partition.
 * Published before the block it belongs to; a replay may repeat messages (apply by `write.pos`).
 */
export const StateEvent = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  /** `state:<pos>`: unique and deterministic. */
  eventId: z.string(),
  height: z.number().int().positive(),
  txId: z.string(),
  write: StateWrite,
});
export type StateEvent = z.infer<typeof StateEvent>;

export interface TopicNames {
  blocks: string;
  state: string;
}

export const TOPICS: TopicNames = { blocks: 'mtc.blocks.v1', state: 'mtc.state.v1' };

/** The topic names under a deployment prefix (tests and side-by-side deployments). */
export function topicNames(prefix = ''): TopicNames {
  return { blocks: `${prefix}${TOPICS.blocks}`, state: `${prefix}${TOPICS.state}` };
}
