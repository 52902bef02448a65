import { formatAmount, parseAmount, tryParseAmount } from './amount.ts';
import type { Activity, BalanceEntry, StateWrite, TokenState, TxEvent, TxSummary, WalletState } from './events.ts';
import { isAddress, tokenIdFromDatakey } from './ids.ts';
import { isValidEntry, type RawEntry } from './node.ts';
import { chainPos } from './position.ts';

/**
 * Decodes one listed transaction (its node entries) into the parts of a TxEvent. Pure.
 *
 * Meaning comes from the whole entry set, never from entry order: the node returns entries in
 * reverse key order, not business order. State comes from the written `values` only; amounts in
 * state that are not integers are a broken invariant and throw a DecodeError (the follower halts
 * loudly rather than publishing a wrong balance). Parameters, which are client input, are read
 * leniently.
 */
export class DecodeError extends Error {
  override name = 'DecodeError';
}

export interface TxPosition {
  height: number;
  index: number;
  seq: number;
  id: string;
  timestamp: number;
}

export function decodeTransaction(pos: TxPosition, entries: readonly RawEntry[]): TxEvent {
  const valid = entries.every(isValidEntry);
  return {
    id: pos.id,
    index: pos.index,
    seq: pos.seq,
    timestamp: pos.timestamp,
    valid,
    summary: summarize(entries),
    entries: [...entries],
    writes: valid ? entries.flatMap((e, i) => decodeWrite(e, chainPos(pos.height, pos.index, i))) : [],
    activity: valid ? decodeActivity(entries) : [],
  };
}

// ---------------------------------------------------------------- state writes

function decodeWrite(entry: RawEntry, pos: string): StateWrite[] {
  const key = entry.datakey;
  const values = entry.values;
  if (!key || !values) return [];
  const jobType = entry.type;
  if (isAddress(key)) return [{ kind: 'wallet', key, pos, jobType, wallet: decodeWallet(key, values) }];
  const tokenId = tokenIdFromDatakey(key);
  if (tokenId !== null) return [{ kind: 'token', key, pos, jobType, token: decodeToken(tokenId, values) }];
  return [{ kind: 'other', key, pos, jobType, values }];
}

export function decodeWallet(address: string, v: Record<string, unknown>): WalletState {
  const list = Array.isArray(v['balance']) ? (v['balance'] as unknown[]) : [];
  return {
    address,
    regdate: int(v['regdate']),
    addinfo: str(v['addinfo']),
    balances: list.map((b) => decodeBalance(address, b)),
    mrc402: decodeMrc402(address, v['mrc402']),
  };
}

function decodeBalance(address: string, raw: unknown): BalanceEntry {
  const b = record(raw);
  return {
    token: int(b['token']),
    balance: stateAmount(b['balance'], `${address} balance`),
    unlockdate: int(b['unlockdate']),
    saleamount: stateAmount(b['saleamount'], `${address} saleamount`),
    auctionamount: stateAmount(b['auctionamount'], `${address} auctionamount`),
  };
}

function decodeMrc402(address: string, raw: unknown): WalletState['mrc402'] {
  if (raw === null || raw === undefined) return null;
  const out: NonNullable<WalletState['mrc402']> = {};
  for (const [id, h] of Object.entries(record(raw))) {
    const r = record(h);
    out[id] = {
      balance: stateAmount(r['balance'], `${address} ${id}`),
      saleamount: stateAmount(r['saleamount'], `${address} ${id}`),
      auctionamount: stateAmount(r['auctionamount'], `${address} ${id}`),
    };
  }
  return out;
}

/** The bridge renames a token record's `token` to `balance`, so the id comes from the key. */
export function decodeToken(tokenId: number, v: Record<string, unknown>): TokenState {
  const what = `TOKEN_DATA_${tokenId}`;
  return {
    token: tokenId,
    id: str(v['id']) || String(tokenId),
    owner: str(v['owner']),
    name: str(v['name']),
    symbol: str(v['symbol']),
    type: str(v['type']) || '010',
    decimal: int(v['decimal']),
    createdate: int(v['createdate']),
    totalsupply: stateAmount(v['totalsupply'], `${what} totalsupply`),
    reservedamount: stateAmount(v['reservedamount'], `${what} reservedamount`),
    remainamount: stateAmount(v['remainamount'], `${what} remainamount`),
    burnningamount: stateAmount(v['burnningamount'], `${what} burnningamount`),
    softcap: str(v['softcap']),
    hardcap: str(v['hardcap']),
    url: str(v['url']),
    information: str(v['information']),
    image: str(v['image']),
    status: str(v['status']),
  };
}

function stateAmount(value: unknown, what: string): string {
  try {
    return formatAmount(parseAmount(value as string | number | null | undefined));
  } catch {
    throw new DecodeError(`${what}: written amount ${JSON.stringify(value)} is not an integer`);
  }
}

// ---------------------------------------------------------------- activity

function decodeActivity(entries: readonly RawEntry[]): Activity[] {
  const types = new Set(entries.map((e) => e.type));
  const out: Activity[] = [];
  const register = entries.find((e) => e.type === 'tokenRegister');
  for (const e of entries) {
    const p = params(e);
    switch (e.type) {
      case 'transfer':
        out.push(transferFrom(p, 'transfer'));
        break;
      case 'receive':
        // A plain transfer writes `transfer` + `receive` with the same arguments: count it once.
        if (!types.has('transfer'))
          out.push(transferFrom(p, types.has('multi_transfer') ? 'multi_transfer' : 'receive'));
        break;
      case 'tokenRegister': {
        const tokenId = tokenIdFromDatakey(e.datakey ?? '');
        if (tokenId === null) break;
        const t = record(e.parameters);
        out.push({
          kind: 'tokenCreate',
          jobType: e.type,
          tokenId,
          owner: str(t['owner']),
          totalsupply: lenientAmount(t['totalsupply']),
          name: str(t['name']),
          symbol: str(t['symbol']),
          decimal: int(t['decimal']),
        });
        break;
      }
      case 'token_reserve': {
        const tokenId = Number(p[3]);
        if (!Number.isSafeInteger(tokenId)) break;
        const reserve = Array.isArray(record(register?.parameters)['reserve'])
          ? (record(register?.parameters)['reserve'] as unknown[]).map(record)
          : [];
        const match = reserve.find((r) => r['address'] === p[1]);
        out.push({
          kind: 'tokenReserve',
          jobType: e.type,
          tokenId,
          from: p[0] ?? '',
          to: p[1] ?? '',
          amount: lenientAmount(p[2]),
          unlockdate: int(match?.['unlockdate']),
        });
        break;
      }
      case 'tokenIncrease':
      case 'tokenBurning': {
        const tokenId = tokenIdFromDatakey(e.datakey ?? '');
        if (tokenId === null) break;
        const ownerEntry = entries.find(
          (o) => o.type === (e.type === 'tokenIncrease' ? 'ownerIncrease' : 'ownerBurning'),
        );
        out.push({
          kind: e.type === 'tokenIncrease' ? 'tokenMint' : 'tokenBurn',
          jobType: e.type,
          tokenId,
          owner: ownerEntry?.datakey ?? str(e.values?.['owner']),
          amount: lenientAmount(p[1]),
          // Legacy calls had no memo: [tokenId, amount, sig, nonce].
          memo: p.length >= 5 ? (p[2] ?? '') : '',
        });
        break;
      }
      case 'NewWallet':
        if (e.datakey) out.push({ kind: 'walletCreate', jobType: e.type, address: e.datakey });
        break;
      default:
        break;
    }
  }
  return out;
}

/** The payment layout: [from, to, amount, tokenId, sig, unlockdate, tag, memo, nonce]. */
function transferFrom(p: string[], jobType: string): Activity {
  return {
    kind: 'transfer',
    jobType,
    from: p[0] ?? '',
    to: p[1] ?? '',
    amount: lenientAmount(p[2]),
    tokenId: int(p[3]),
    unlockdate: int(p[5]),
    tag: p[6] ?? '',
    memo: p[7] ?? '',
  };
}

// ---------------------------------------------------------------- summary

const SUMMARY_PRIORITY = ['transfer', 'multi_transfer', 'tokenRegister', 'tokenIncrease', 'tokenBurning', 'NewWallet'];

/** The one-line view of a transaction, from its entries alone (also for raw, unindexed forms). */
export function summarize(entries: readonly RawEntry[]): TxSummary {
  const main =
    SUMMARY_PRIORITY.map((t) => entries.find((e) => e.type === t)).find((e) => e !== undefined) ?? entries[0];
  if (!main) return { type: '', from: '', to: '', amount: '0', token: '' };
  const p = params(main);
  const tokenOfKey = String(tokenIdFromDatakey(main.datakey ?? '') ?? '');
  switch (main.type) {
    case 'transfer':
      return { type: main.type, from: p[0] ?? '', to: p[1] ?? '', amount: lenientAmount(p[2]), token: p[3] ?? '' };
    case 'multi_transfer': {
      const list = jsonArray(p[1]).map(record);
      const total = list.reduce((sum, r) => sum + (tryParseAmount(r['amount']) ?? 0n), 0n);
      return {
        type: main.type,
        from: p[0] ?? '',
        to: str(list[0]?.['address']),
        amount: total.toString(),
        token: p[2] ?? '',
      };
    }
    case 'tokenRegister': {
      const t = record(main.parameters);
      return {
        type: main.type,
        from: str(t['owner']),
        to: '',
        amount: lenientAmount(t['totalsupply']),
        token: tokenOfKey,
      };
    }
    case 'tokenIncrease':
    case 'tokenBurning': {
      const owner = str(main.values?.['owner']);
      return {
        type: main.type,
        from: owner,
        to: main.type === 'tokenIncrease' ? owner : '',
        amount: lenientAmount(p[1]),
        token: tokenOfKey,
      };
    }
    case 'NewWallet':
      return { type: main.type, from: '', to: main.datakey ?? '', amount: '0', token: '0' };
    default:
      return { type: main.type, from: main.address ?? '', to: '', amount: '0', token: tokenOfKey };
  }
}

// ---------------------------------------------------------------- lenient readers for client input

function params(e: RawEntry): string[] {
  return Array.isArray(e.parameters) ? e.parameters.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))) : [];
}

function jsonArray(text: string | undefined): unknown[] {
  if (!text) return [];
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

function lenientAmount(value: unknown): string {
  return (tryParseAmount(value) ?? 0n).toString();
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function str(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

function int(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : 0;
  return Number.isSafeInteger(n) ? n : 0;
}
