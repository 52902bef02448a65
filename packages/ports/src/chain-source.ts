import type { RawBlock, RawTransaction } from '@mtc/domain';

/** ChainSource: the node's three read routes a follower needs (node-api.md §2). */
export interface ChainSource {
  /** The node's synced height (`GET /block`). */
  height(): Promise<number>;
  /** `GET /block/{height|hash}`; null when the node does not know it. */
  block(id: number | string): Promise<RawBlock | null>;
  /** `GET /transaction/{txid}`; null when the node does not know it. */
  transaction(txId: string): Promise<RawTransaction | null>;
}
