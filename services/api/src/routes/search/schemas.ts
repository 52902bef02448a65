import { z } from 'zod';

/** Response bodies of /search; exports are OpenAPI components of the same name. */

export const SearchRedirect = z
  .object({ redirect: z.string().describe('Explorer page path of the one thing that matched.') })
  .describe('Exactly one match.');

export const SearchResults = z
  .object({
    blocks: z.array(z.object({ height: z.int(), hash: z.string() })),
    transactions: z.array(z.object({ id: z.string(), blockNum: z.int() })),
    tokens: z.array(z.object({ token: z.int(), name: z.string(), symbol: z.string() })),
    nfts: z.array(z.object({ id: z.string(), protocol: z.enum(['MRC400', 'MRC401', 'MRC402']), name: z.string() })),
    addresses: z
      .array(z.object({ address: z.string() }))
      .optional()
      .describe('Present only when a wallet address matched along with something else.'),
  })
  .describe('No match (four empty arrays) or several matches.');
export type SearchResults = z.infer<typeof SearchResults>;

export const SearchResponse = z.union([SearchRedirect, SearchResults]);
export type SearchResponse = z.infer<typeof SearchResponse>;
