import { z } from 'zod';
import { TEMPLATE_TIERS } from '../../config.ts';

/** Response body of /tx/{id}/templates; exports are OpenAPI components of the same name. */
export const TxTemplates = z.object({
  tx: z.string().describe('Transaction hash.'),
  templates: z.array(
    z.object({
      id: z.string(),
      tier: z.enum(TEMPLATE_TIERS).describe('free templates are shareable as they are.'),
      url: z
        .string()
        .describe(
          'Viewer page of the transaction in this template; a pro url ends with ?apikey=<API_KEY>, a placeholder for the caller.',
        ),
    }),
  ),
});
export type TxTemplates = z.infer<typeof TxTemplates>;
