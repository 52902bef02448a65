import { z } from 'zod';

/**
 * The public node's read shapes, exactly as served (node-api.md §2). They are parsed leniently
 * where the chain itself is polymorphic (entry `token`, `parameters`) and strictly where we rely on
 * a field (heights, hashes, ids).
 */

const hex64 = z.string().regex(/^[0-9a-f]{64}$/);

export const RawBlockTx = z.object({ id: hex64, timestamp: z.number().int() });
export type RawBlockTx = z.infer<typeof RawBlockTx>;

export const RawBlock = z.object({
  id: hex64,
  sn: z.string().regex(/^[1-9][0-9]*$/),
  transaction: z.array(RawBlockTx),
  timestamp: z.number().int(),
});
export type RawBlock = z.infer<typeof RawBlock>;

/** One state write of a transaction. The lifecycle entry has only the first seven fields. */
export const RawEntry = z.looseObject({
  timestamp: z.number().int(),
  id: hex64,
  parameters: z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]),
  token: z.union([z.string(), z.number()]),
  type: z.string(),
  values: z.record(z.string(), z.unknown()).optional(),
  validationCode: z.number().int().optional(),
  address: z.string().optional(),
  datakey: z.string().optional(),
  db_id: z.string().optional(),
  db_sn: z.string().optional(),
});
export type RawEntry = z.infer<typeof RawEntry>;

export const RawTransaction = z.array(RawEntry);
export type RawTransaction = z.infer<typeof RawTransaction>;

/** `GET /block` answers the height as bare digits (sent as text/html). */
export const RawHeight = z
  .string()
  .trim()
  .regex(/^(0|[1-9][0-9]*)$/, 'node height must be decimal digits')
  .transform(Number);

/** Entries whose validationCode is not 0 are failed Fabric transactions: their writes never happened. */
export function isValidEntry(entry: RawEntry): boolean {
  return (entry.validationCode ?? 0) === 0;
}

/** The lifecycle entry of a chaincode install/upgrade. */
export const LIFECYCLE_TYPE = 'Chaincode Install or Update';
