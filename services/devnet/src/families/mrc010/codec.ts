import { creditEntry, type BalanceEntry, type Mrc010Token, type Wallet } from './records.ts';
import { isLegacy, type ChaincodeVersion } from '../../chaincode/versions.ts';

/**
 * MRC-010 records per chaincode version (chaincode/versions.ts). Legacy records have no `id`, legacy
 * balance entries are CC-22 `mtc.go` BalanceInfo; the one-month 6b6d1e1 layout (id, 3-field entries, no
 * mrc010) is not modelled. Reading is json.Unmarshal into the current struct plus CC-t GetAddressInfo /
 * GetMRC010 filling an empty id from the key; writing is json.Marshal of the writing version's struct.
 */
export interface LegacyBalanceEntry {
  balance: string;
  token: number;
  unlockdate: number;
}

/** A wallet record written by a legacy version: the fields its MetaWallet has (see the table). */
export type LegacyWallet = Pick<Wallet, 'regdate' | 'password' | 'addinfo' | 'job_type' | 'job_args' | 'jobdate'> &
  Partial<Pick<Wallet, 'mrc402' | 'mrc800' | 'nonce'>> & { balance: LegacyBalanceEntry[]; pending: Wallet['pending'] };

/** The pre-2.0 record kept its balance list under `token` (only the bridge's rename tells of it). */
export type V1Wallet = Omit<LegacyWallet, 'balance'> & { token: LegacyBalanceEntry[] };

export type ChainWallet = Wallet | LegacyWallet | V1Wallet;

export type ChainToken = Mrc010Token | Omit<Mrc010Token, 'id'>;

const readWallets = new WeakMap<object, Wallet>();
const clientWallets = new WeakMap<object, Wallet>();
const readTokens = new WeakMap<object, Mrc010Token>();

function memo<T>(cache: WeakMap<object, T>, raw: object, make: () => T): T {
  let value = cache.get(raw);
  if (value === undefined) cache.set(raw, (value = make()));
  return value;
}

/**
 * A stored wallet as CC-t GetAddressInfo reads it; a pre-2.0 `token` list is read as the balance (assumed:
 * else those wallets lost their funds). The result is frozen and shared: callers copy it (cloneWallet).
 */
export function readWallet(address: string, raw: object): Wallet {
  const record = raw as Partial<Wallet> & { token?: LegacyBalanceEntry[] };
  if (record.id) return raw as Wallet;
  return memo(readWallets, raw, () => {
    const list: (LegacyBalanceEntry | BalanceEntry)[] = record.balance ?? record.token ?? [];
    return Object.freeze<Wallet>({
      id: address,
      regdate: record.regdate ?? 0,
      password: record.password ?? '',
      addinfo: record.addinfo ?? '',
      job_type: record.job_type ?? '',
      job_args: record.job_args ?? '',
      jobdate: record.jobdate ?? 0,
      balance: list.map((e) => ('saleamount' in e ? e : creditEntry(e.balance, e.token, e.unlockdate))),
      mrc010: null,
      mrc402: record.mrc402 ?? null,
      mrc800: record.mrc800 ?? null,
      pending: record.pending ?? null,
      nonce: record.nonce ?? '',
    });
  });
}

/**
 * A wallet as a planning client sees it, with the nonce it must sign with: the stored nonce, or the
 * jobdate of an old wallet whose nonce is "" (CC-t/CC-22 `base.go` GetNonce, NonceCheck).
 */
export function clientWallet(address: string, raw: object | undefined): Wallet | undefined {
  if (raw === undefined) return undefined;
  const wallet = readWallet(address, raw);
  if (wallet.nonce !== '') return wallet;
  return memo(clientWallets, raw, () => Object.freeze({ ...wallet, nonce: String(wallet.jobdate) }));
}

/** What `version`'s SetAddressInfo marshals for `wallet`. */
export function encodeWallet(wallet: Wallet, version: ChaincodeVersion): ChainWallet {
  if (!isLegacy(version)) return wallet;
  const { regdate, password, addinfo, job_type, job_args, jobdate, mrc402, mrc800, pending, nonce } = wallet;
  const head = { regdate, password, addinfo, job_type, job_args, jobdate };
  const balance = wallet.balance.map(({ balance, token, unlockdate }) => ({ balance, token, unlockdate }));
  switch (version) {
    case 'v1':
      return { ...head, token: balance, pending };
    case 'v2.0':
      return { ...head, balance, pending };
    case 'v2.1':
      return { ...head, balance, pending, nonce };
    case 'v2.1-mrc800':
      return { ...head, balance, mrc800, pending, nonce };
    case 'v2.2':
    case 'v2.3':
    case 'current': // never reached (isLegacy)
      return { ...head, balance, mrc402, mrc800, pending, nonce };
  }
}

/** A stored token record as CC-t GetMRC010 reads it (an empty id filled from the token number). */
export function readToken(raw: object): Mrc010Token {
  const record = raw as ChainToken;
  if ('id' in record && record.id !== '') return record;
  // Spread after the id: a legacy record has no id key, so the id lands first, in struct order.
  return memo(readTokens, raw, () => Object.freeze({ id: String(record.token), ...record }));
}

/** What `version`'s SetTokenInfo marshals: legacy Token has no `id`. */
export function encodeToken(token: Mrc010Token, version: ChaincodeVersion): ChainToken {
  if (!isLegacy(version)) return token;
  const { id: _id, ...legacy } = token;
  return legacy;
}

/** As the node serves it: BR `mtcbridge.js` parse_transaction renames `token` to `balance`; only key order tells. */
export function servedWallet(raw: object): Wallet | LegacyWallet {
  const record = raw as ChainWallet;
  if (!('token' in record)) return record;
  const { token, ...rest } = record;
  return { ...rest, balance: token };
}
