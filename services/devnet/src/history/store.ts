import type { RawBlock, RawEntry } from '@mtc/domain';

/**
 * Where a devnet keeps the blocks and transactions it has generated. Append-only, like the chain:
 * block h is appended after block h − 1, together with its transactions, and nothing is rewritten.
 * Reads return the node's JSON text of what was appended, byte for byte as `JSON.stringify` wrote
 * it then, so every reader parses its own copy.
 *
 * The world state (wallets, tokens, orders) is not here: it is as big as the population, while the
 * history grows with every block. Two implementations: `createMemoryHistory` for small devnets
 * (tests), `createFileHistory` (file-history.ts) for long ones; `store.test.ts` holds both to this.
 */
export interface HistoryStore {
  /**
   * Appends block height() + 1 and its transactions (in block order). The entries must not change
   * afterwards (the memory store keeps them; the devnet's are fresh objects around frozen records).
   */
  append(block: RawBlock, txs: readonly HistoryTx[]): void;
  height(): number;
  /** The JSON of block `height` (1 … height()), else undefined. */
  blockJson(height: number): string | undefined;
  heightOf(hash: string): number | undefined;
  transactionJson(id: string): string | undefined;
  /** Releases files; reads afterwards throw. */
  close(): void;
}

export interface HistoryTx {
  /** 64 lower-case hex characters. */
  readonly id: string;
  readonly entries: readonly RawEntry[];
}

/** Ids the chain writes; anything else is unknown without a lookup. */
export const HEX_ID = /^[0-9a-f]{64}$/;

/**
 * The whole history in memory, as the objects that were cut: their nested values are the world's
 * frozen records, shared between snapshots, so this is far smaller than their JSON. Fine for the
 * few thousand blocks of a test devnet; its memory grows with every transaction.
 */
export function createMemoryHistory(): HistoryStore {
  const blocks: RawBlock[] = [];
  const heightByHash = new Map<string, number>();
  const txs = new Map<string, readonly RawEntry[]>();
  let closed = false;
  const open = (): void => {
    if (closed) throw new Error('the devnet history is closed');
  };
  return {
    append(block, blockTxs) {
      open();
      // A copy: the caller keeps the block it cut (cutBlock hands it out).
      blocks.push({ ...block, transaction: block.transaction.map((tx) => ({ ...tx })) });
      heightByHash.set(block.id, blocks.length);
      for (const tx of blockTxs) txs.set(tx.id, tx.entries);
    },
    height: () => blocks.length,
    blockJson(height) {
      open();
      const block = Number.isInteger(height) ? blocks[height - 1] : undefined;
      return block && JSON.stringify(block);
    },
    heightOf(hash) {
      open();
      return heightByHash.get(hash);
    },
    transactionJson(id) {
      open();
      const entries = txs.get(id);
      return entries && JSON.stringify(entries);
    },
    close() {
      closed = true;
    },
  };
}
