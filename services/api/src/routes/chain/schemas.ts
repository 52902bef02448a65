import { z } from 'zod';
import { BlockSummary } from '../blocks/schemas.ts';
import { TxSummary } from '../txs/schemas.ts';

/** Response body of /chain; exports are OpenAPI components of the same name. */
export const ChainOverview = z.object({
  localBlock: z.int().describe('The indexed height (0 before the first block is indexed).'),
  mainnetBlock: z
    .int()
    .describe("The node's height, reused for a short time; the last one known (or localBlock) while the node is down."),
  blocks: z.array(BlockSummary).describe('The 10 newest indexed blocks, newest first.'),
  transactions: z.array(TxSummary).describe('The 10 newest indexed transactions, newest first.'),
});
export type ChainOverview = z.infer<typeof ChainOverview>;
