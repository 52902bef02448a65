import { LEGACY, LIFECYCLE_TYPE, type RawEntry } from '@mtc/domain';
import { isMtAddress } from '../world/address.ts';
import type { Write } from '../world/state.ts';

export interface BlockRef {
  /** data_hash */
  readonly hash: string;
  /** block number as the node writes it: a string */
  readonly sn: string;
}

export interface TxWrites {
  readonly id: string;
  readonly timestamp: number;
  readonly validationCode: number;
  /** Sorted by key, as Fabric orders a write set. */
  readonly writes: readonly Write[];
}

/**
 * Wallet job types whose entry values the node stamps with `tx_id`, `db_sn`, `db_id` before it
 * caches the transaction (ND `src/plugins/mtcnode-block.js`, the cases that set save_addr from
 * parameters[0] or [1]; `NewWallet` falls through into them). ownerIncrease/ownerBurning and the
 * MRC-100 payments are saved without the stamp.
 */
// prettier-ignore
const STAMPED_TYPES: ReadonlySet<string> = new Set([
  // the node files these under parameters[0]
  'NewWallet', 'transfer', 'multi_transfer', 'transfer_mrc010buy', 'transfer_mrc010sell', 'transfer_mrc010bid',
  'transfer_mrc010item', 'stodexRegister', 'mrc030create', 'transfer_mrc401buy', 'transfer_mrc401createtrade',
  'transfer_mrc401bid', 'transfer_mrc800take', 'transfer_mrc800', 'transfer_mrc402', 'transfer_mrc402buy',
  'transfer_mrc402bid', 'stodexUnRegister', 'stodexExchangePending',
  // … and these under parameters[1]
  'receive', 'token_reserve', 'mrc030reward', 'mrc030refund', 'receive_mrc010fee', 'receive_mrc010sell',
  'receive_mrc010buy', 'receive_mrc010auction', 'receive_mrc010refund', 'receive_mrc010item', 'receive_mrc401buy',
  'receive_mrc401sell', 'receive_mrc401fee', 'receive_mrc401refund', 'receive_mrc401auction', 'receive_mrc402',
  'receive_mrc402fee', 'receive_mrc402sell', 'receive_mrc402auction', 'receive_mrc402refund', 'receive_mrc402item',
  'receive_meltfee', 'receive_melt', 'stodexExchangeRequest', 'receive_mrc800', 'receive_mrc800give',
]);

/**
 * A transaction's entries exactly as the node serves them: the bridge's parse_transaction (BR
 * `mtcbridge.js`: one entry per written key that has job_args, `token = values.token || ''`, the
 * list reversed) followed by the node's stamping of valid wallet entries. The bridge's special
 * cases, in its order:
 * - `MRC020_MT…` keys: parameters [], the publickey blanked while `is_open` is 0, and no job_args
 *   needed;
 * - `MRC100LOG` records: parameters synthesised as [key, token, logger, log (= job_args), "", ""],
 *   job_args not parsed and no rename, so `token` stays in values and the entry's token is the game
 *   token's number (the only entry kind with an integer token);
 * - otherwise job_args is parsed, and a record with `token` but no `balance` has it renamed to
 *   `balance` (meant for pre-2.0 wallets, it hits every TOKEN_DATA record too);
 * - exchange roles lost to a key written twice (families/mrc010/legacy/exchange.ts) are put back as a second
 *   entry with the same datakey, the same values and parameters, another type and address "" (the
 *   bridge builds it before setting the address): `exchangePair` whose from (p[0]) is the to-fee
 *   receiver (p[12]) adds `exchange`; `exchangeFee` whose to (p[9]) is the from-fee receiver (p[3])
 *   adds `exchangePair`; `exchangeFeePair` whose from-fee receiver is the to-fee receiver adds
 *   `exchangeFee`. The second entry is pushed before the first, so it follows it once reversed. (The
 *   first rule fires on the to side's key, not the from side's whose role was lost: a bridge slip,
 *   kept.)
 */
export function txEntries(tx: TxWrites, block: BlockRef): RawEntry[] {
  const out: RawEntry[] = [];
  // Writes of one call often share their job_args (transfer/receive); parse each text once.
  const parsed = new Map<string, unknown>();
  for (const { key, value } of tx.writes) {
    if (key === 'MetaCoinICO' || typeof value !== 'object') continue;
    const record = value as Record<string, unknown>;
    let values = record;
    let parameters: unknown;
    if (key.startsWith('MRC020_MT')) {
      parameters = [];
      if (record.is_open === 0) values = { ...record, publickey: '' };
    } else {
      if (typeof record.job_args !== 'string') continue;
      if (record.job_type === LEGACY.mrc100Log) {
        parameters = [key, record.token, record.logger, record.job_args, '', ''];
      } else {
        parameters = parsed.get(record.job_args);
        if (parameters === undefined) {
          try {
            parameters = JSON.parse(record.job_args);
          } catch {
            continue; // the bridge falls back to params = [], whose empty type drops the entry
          }
          parsed.set(record.job_args, parameters);
        }
        // BR: `params.balance == undefined && params.token != undefined` (loose: null counts too).
        if (values.balance == null && values.token != null) {
          const { token, ...rest } = values;
          values = { ...rest, balance: token };
        }
      }
    }
    const type = typeof values.job_type === 'string' ? values.job_type : '';
    if (type === '') continue;
    if (tx.validationCode === 0 && STAMPED_TYPES.has(type)) {
      values = { ...values, tx_id: tx.id, db_sn: block.sn, db_id: block.hash };
    }
    const entry: RawEntry = {
      timestamp: tx.timestamp,
      id: tx.id,
      parameters: parameters as RawEntry['parameters'],
      token: (values.token as string | number | undefined) || '',
      type,
      values,
      validationCode: tx.validationCode,
      address: '',
      datakey: key,
      db_id: block.hash,
      db_sn: block.sn,
    };
    const lost = lostExchangeRole(type, parameters);
    if (lost) out.push({ ...entry, type: lost });
    if (isMtAddress(key)) entry.address = key;
    out.push(entry);
  }
  return out.reverse();
}

/** The bridge's three checks for an exchange role overwritten in the write set (see txEntries). */
function lostExchangeRole(type: string, parameters: unknown): string | null {
  if (!Array.isArray(parameters)) return null;
  const p = parameters as unknown[];
  if (type === LEGACY.exchangePair && p[0] === p[12]) return LEGACY.exchange;
  if (type === LEGACY.exchangeFee && p[9] === p[3]) return LEGACY.exchangePair;
  if (type === LEGACY.exchangeFeePair && p[3] === p[12]) return LEGACY.exchangeFee;
  return null;
}

/** The single entry of a chaincode lifecycle commit (no values, validationCode, address, datakey). */
export function lifecycleEntries(id: string, timestamp: number, block: BlockRef): RawEntry[] {
  return [{ timestamp, id, parameters: [], token: '', type: LIFECYCLE_TYPE, db_id: block.hash, db_sn: block.sn }];
}
