import { addressChecksum } from '../ids.ts';
import type { RawEntry } from '../node.ts';
import type { TxPosition } from '../decode.ts';

/**
 * Hand-built node entries for the decoder's tests, shaped exactly like the node serves them
 * (node-api.md §2.3): every entry of a transaction carries the same tx id, timestamp and block,
 * `parameters` is the written record's job_args parsed, `values` the whole written record.
 */

/** A valid address: `MT` + 30 characters + their CRC-32. */
export function addr(seed: string): string {
  const body = seed.padEnd(30, 'x').slice(0, 30);
  return `MT${body}${addressChecksum(body)}`;
}

export const TX = 'ab'.repeat(32);
export const POS: TxPosition = { height: 7, index: 2, seq: 40, id: TX, timestamp: 1_700_000_000 };

/** A wallet record as the chaincode writes it (CC-t `mtc.go` TWallet), after the given job. */
export function wallet(
  address: string,
  jobType: string,
  params: unknown[],
  balance: unknown[],
): Record<string, unknown> {
  return {
    id: address,
    regdate: 1_690_000_000,
    addinfo: 'memo',
    job_type: jobType,
    job_args: JSON.stringify(params),
    jobdate: 1_700_000_000,
    balance,
    mrc010: null,
    mrc402: null,
    nonce: 'n'.repeat(40),
  };
}

export function entry(
  type: string,
  datakey: string,
  parameters: RawEntry['parameters'],
  values: Record<string, unknown>,
  code = 0,
): RawEntry {
  return {
    timestamp: POS.timestamp,
    id: TX,
    parameters,
    token: '',
    type,
    values,
    validationCode: code,
    address: datakey.startsWith('MT') ? datakey : '',
    datakey,
    db_id: 'cd'.repeat(32),
    db_sn: '7',
  };
}

/** A wallet entry: the wallet written with `params` as its job_args. */
export function walletEntry(
  type: string,
  address: string,
  params: string[],
  balance: unknown[] = [bal(0, '1')],
): RawEntry {
  return entry(type, address, params, wallet(address, type, params, balance));
}

/** A balance entry as MRC010Add writes it: sale/auction "" (read as 0). */
export const bal = (token: number, balance: string, unlockdate = 0) => ({
  balance,
  token,
  unlockdate,
  saleamount: '',
  auctionamount: '0',
});

/** The node lists a transaction's entries in reverse key order (Fabric sorts writes by key). */
export function nodeOrder(entries: readonly RawEntry[]): RawEntry[] {
  const key = (e: RawEntry): string => e.datakey ?? '';
  return [...entries].sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
}
