import type { StateEvent } from '@mtc/domain';
import type { Write } from '@mtc/ports';
import { tokenWrites } from './tokens/tokens.ts';
import { walletWrite } from './wallets/wallets.ts';

/**
 * The state topic's projection: records as written, put if newer by chain position, so state events
 * may arrive in any order across entities (partitions) and repeat. Pure.
 */
export function projectState(events: readonly StateEvent[]): Write[] {
  const out: Write[] = [];
  for (const { write: w } of events) {
    switch (w.kind) {
      case 'wallet':
        out.push(walletWrite(w.pos, w.wallet));
        break;
      case 'token':
        out.push(...tokenWrites(w.pos, w.token, w.jobType));
        break;
      case 'nftCollection':
      case 'nftItem':
      case 'mrc402':
        // Decoded and published; their read models come with the NFT endpoints.
        break;
      case 'other':
        // DEX orders and legacy records: no endpoint shows them as state.
        break;
    }
  }
  return out;
}
