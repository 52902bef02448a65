import { z } from 'zod';

/**
 * Rows of the exports that have no list item elsewhere (each export's row is otherwise the list
 * item of the matching paged route, so the two compare 1:1). Exports are OpenAPI components.
 */
export const DailyTxCount = z.object({
  date: z.iso.date().describe('The calendar day (YYYY-MM-DD) in the configured statistics time zone.'),
  count: z.int().describe('Transactions listed in blocks of that day, up to the indexed height of the export.'),
});
export type DailyTxCount = z.infer<typeof DailyTxCount>;
