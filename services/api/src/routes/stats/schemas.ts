import { z } from 'zod';

/** Response body of /tx-stats; exports are OpenAPI components of the same name. */
export const TxStats = z.object({
  history: z
    .array(
      z.object({
        date: z.iso
          .date()
          .describe('The calendar day (ISO 8601 YYYY-MM-DD) in the configured statistics time zone (UTC by default).'),
        count: z.int().describe('Transactions listed in blocks of that day.'),
      }),
    )
    .describe('One entry per day, oldest first, ending with today.'),
  todaySoFar: z.int().describe('Transactions since the start of today, up to now.'),
  yesterdaySameTime: z.int().describe('Transactions from the start of yesterday up to the same time of day yesterday.'),
});
export type TxStats = z.infer<typeof TxStats>;
