import { isAddress } from '@mtc/domain';
import { z } from 'zod';
import { NO_SUCH_ENTITY } from './errors.ts';

/**
 * Decoders for path and query parameters. The wire always carries text; these accept only canonical
 * forms (digits for numbers, hex for hashes) and output typed values. Their output side is plain JSON
 * Schema, which is what the OpenAPI document shows for each parameter.
 */

/** A whole number written in digits only (no sign, exponent, hex or spaces), within [min, max]. */
export function intParam(min: number, max: number) {
  return z
    .string()
    .regex(/^[0-9]{1,16}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.int().min(min).max(max));
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

/** A 64-character hex hash; upper-case input is accepted and lower-cased (the chain's form). */
export const Hash64Param = z.string().regex(HEX64, 'must be a 64-character hex hash').toLowerCase();

export const TxIdParams = z.object({
  id: Hash64Param.describe('Transaction hash: 64 hex characters.'),
});

/**
 * A block is named by its height (output as a number) or its hash (output as a lower-case string).
 * Exactly 64 characters means a hash, as on the node.
 */
export const BlockRefParam = z
  .string()
  .regex(
    /^(?:[1-9][0-9]{0,15}|[0-9a-fA-F]{64})$/,
    'must be a block height (a whole number from 1) or a 64-character hex block hash',
  )
  .transform((v): number | string => (v.length === 64 ? v.toLowerCase() : Number(v)))
  // HEX64, not lower case only: the document shows this side, and a client may send upper case.
  .pipe(z.union([z.int().min(1).max(Number.MAX_SAFE_INTEGER), z.string().regex(HEX64)]))
  .meta({ examples: [1] })
  .describe('Block height (1 and up) or 64-hex block hash.');
export type BlockRef = z.output<typeof BlockRefParam>;

export const BlockIdParams = z.object({ id: BlockRefParam });

const ADDRESS_MESSAGE = 'must be a Metacoin address: MT, 30 letters or digits, and their CRC-32 in lower-case hex';
/** The 404's message (after the parameter's name) for an address of the right form whose CRC-32 fails. */
export const NO_SUCH_ADDRESS = 'no such address: its last 8 characters are not the CRC-32 of the 30 after MT';

/**
 * The OpenAPI `format` of an address parameter. JSON Schema cannot state the checksum, so the document
 * gives the form as a pattern and names this format for the rest (a client or a fuzzer that knows
 * it can tell a valid address from one of the right form with a wrong CRC-32).
 */
export const ADDRESS_FORMAT = 'mtc-address';

/**
 * A Metacoin address: MT + 30 alphanumerics + the CRC-32 of those 30, checked (`isAddress`). Not of
 * that form: a 400. Of that form with a wrong CRC-32: a 404, "no such address" — the request matches
 * the document's pattern, which cannot state the checksum, and no wallet can have that address.
 */
export const AddressParam = z
  .string()
  // The form in the document; `abort` keeps a malformed address to one message (and off the 404).
  .regex(/^MT[A-Za-z0-9]{30}[0-9a-f]{8}$/, { message: ADDRESS_MESSAGE, abort: true })
  .refine(isAddress, { message: NO_SUCH_ADDRESS, params: NO_SUCH_ENTITY })
  // The example is a valid address, so a client (or a fuzzer) that cannot compute CRC-32 still has one.
  .meta({ format: ADDRESS_FORMAT, examples: ['MTW95PhgJazSd8DLjkrQc7L4KQCI9GrU94d292b5'] })
  .describe(
    'Wallet address: MT, 30 letters or digits, and their CRC-32 in lower-case hex (40 characters). Not of that form: 400; a wrong CRC-32: 404.',
  );

export const AddressParams = z.object({ id: AddressParam });

/** An MRC-010 token id: 0 is the native coin, 1 and up are the other tokens; digits only. */
export const TokenIdParam = z
  .string()
  .regex(/^(?:0|[1-9][0-9]{0,15})$/, 'must be a token id: a whole number from 0, digits only, no leading zeros')
  .transform(Number)
  .pipe(z.int().min(0).max(Number.MAX_SAFE_INTEGER))
  .meta({ examples: [0] })
  .describe('Token id: 0 is the native coin, 1 and up the other MRC-010 tokens (digits only).');

export const TokenIdParams = z.object({ id: TokenIdParam });
