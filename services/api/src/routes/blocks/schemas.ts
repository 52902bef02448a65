import { RawTransaction } from '@mtc/domain';
import { z } from 'zod';
import { CursorFields } from '../../cursor.ts';

/** Response bodies of the block routes; each export is an OpenAPI component of the same name. */

export const BlockSummary = z.object({
  height: z.int(),
  hash: z.string().describe('Block hash (the block data hash), 64 hex.'),
  txCount: z.int().describe('Listed transactions in the block.'),
  timestamp: z.int().describe('Unix seconds.'),
});
export type BlockSummary = z.infer<typeof BlockSummary>;

export const BlocksPage = z.object({
  blocks: z.array(BlockSummary).describe('Newest first.'),
  currentBlock: z.int().describe('The indexed height.'),
  page: z.int(),
  totalPages: z.int(),
  ...CursorFields,
});
export type BlocksPage = z.infer<typeof BlocksPage>;

const BlockTxRef = z.object({ id: z.string(), timestamp: z.int() });

export const BlockDetail = z.object({
  id: z.string().describe('Block hash.'),
  sn: z.string().describe('Block height, as a decimal string.'),
  timestamp: z.int(),
  transaction: z.array(BlockTxRef).describe('The listed transactions, in block order.'),
});
export type BlockDetail = z.infer<typeof BlockDetail>;

export const RawBlockTransaction = z.object({
  id: z.string(),
  timestamp: z.int(),
  type: z.string().describe("The type of the transaction's first entry, as the node lists it ('' if it has none)."),
  payload: RawTransaction.describe("The node's /transaction answer for this id, as served."),
});

export const RawBlockResponse = z.object({
  block: z.looseObject({
    id: z.string(),
    sn: z.string(),
    timestamp: z.int(),
    transaction: z.array(RawBlockTransaction),
  }),
});
export type RawBlockResponse = z.infer<typeof RawBlockResponse>;
