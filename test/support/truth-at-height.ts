import type { Devnet } from '@mtc/devnet';
import { validEntries } from './fungible-truth.ts';

/**
 * The devnet's world as it stood after block `height`, from its raw chain alone: per key, the value
 * of the last valid write at or below `height` (entries of transactions with a validationCode ≠ 0
 * never happened), which is how the chain itself keeps state. Never from our decoder or projections.
 * Items carry their collection from their key. At the head it equals `devnet.worldState()` (the
 * snapshot test checks that first, so this function can be trusted at earlier heights).
 */
type World = ReturnType<Devnet['worldState']>;

const WALLET = /^MT[A-Za-z0-9]{38}$/;
const TOKEN = /^TOKEN_DATA_([0-9]+)$/;
const COLLECTION = /^MRC400_[0-9a-f]{32}[0-9]$/;
const ITEM = /^(MRC400_[0-9a-f]{32}[0-9])_[A-Za-z0-9]{40}$/;
const MRC402 = /^MRC402_[0-9a-f]{32}[0-9]$/;

export interface WorldAt {
  wallets: World['wallets'];
  /** Token ids created at or below the height. */
  tokens: number[];
  mrc400s: string[];
  mrc402s: string[];
  mrc401s: World['mrc401s'][string][];
}

export function worldAt(devnet: Devnet, height: number): WorldAt {
  const wallets: Record<string, unknown> = {};
  const tokens = new Set<number>();
  const mrc400s = new Set<string>();
  const mrc402s = new Set<string>();
  const items = new Map<string, Record<string, unknown>>();
  for (const { height: h, entry } of validEntries(devnet)) {
    if (h > height) break;
    const key = entry.datakey ?? '';
    const values = entry.values;
    if (!values) continue;
    if (WALLET.test(key)) {
      // A pre-2.0 wallet lists its entries under `token`; the node serves them as `balance`. The
      // node adds where the write is (tx_id, db_id, db_sn) to every entry's values: not the record.
      const { token, tx_id: _tx, db_id: _block, db_sn: _height, ...rest } = values;
      wallets[key] = 'balance' in rest ? rest : { ...rest, balance: token };
    }
    const t = TOKEN.exec(key);
    if (t) tokens.add(Number(t[1]));
    if (COLLECTION.test(key)) mrc400s.add(key);
    if (MRC402.test(key)) mrc402s.add(key);
    const item = ITEM.exec(key);
    if (item) items.set(key, { ...values, id: key, mrc400: item[1] });
  }
  return {
    wallets: wallets as World['wallets'],
    tokens: [...tokens].sort((a, b) => a - b),
    mrc400s: [...mrc400s].sort(),
    mrc402s: [...mrc402s].sort(),
    mrc401s: [...items.values()] as unknown as World['mrc401s'][string][],
  };
}
