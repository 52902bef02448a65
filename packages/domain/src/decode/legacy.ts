import { LEGACY, type LegacyJobType } from '../job-types.ts';
import type { RawEntry } from '../node.ts';
import {
  jsonArray,
  lenientAmount,
  optionalInt,
  otherActivity,
  params,
  paymentView,
  PRIORITY,
  str,
  sumAmounts,
  tokenOf,
  type EntryView,
  type Family,
  type JobDecoder,
} from './family.ts';

/**
 * Families only old history holds (dispatched until ≈ 2022-08, CC-22 `MetaCoin.go`) or that an
 * explorer of fungible assets shows as generic activity (MRC-100 games, MRC-030 rewards). Each
 * entry becomes one `other` activity (they are known, so not counted as unknown); the entry view
 * and the summary still read their parties and amounts.
 *
 * Layouts:
 * - `SetBase`, `tokenAddTarget`, `tokenRemoveTarget` (token record): [tokenId, otherTokenId, sig, nonce];
 *   `tokenAddLogger`, `tokenRemoveLogger`: [tokenId, logger, sig, nonce].
 * - `exchange` (20 call args, written to every party's wallet): [fromAddr, fromAmount, fromToken,
 *   fromFeeTo, fromFee, fromFeeToken, fromTag, fromMemo, fromSig, toAddr, toAmount, toToken,
 *   toFeeTo, toFee, toFeeToken, toTag, toMemo, toSig, fromNonce, toNonce] (CC-22 `MetaCoin.go`).
 *   `exchange` → from's wallet, `exchangePair` → to's, `exchangeFee` / `exchangeFeePair` → the fee
 *   receivers'. When one wallet plays two roles the chaincode writes it once, and the bridge adds
 *   a second entry with the same key for the other role (BR `parse_transaction`): the core keeps
 *   one state write per key.
 * - `MRC100LOG` (an MRC-100 game log, key chosen by the client): the bridge synthesises
 *   parameters `[key, token, logger, log, "", ""]` and the entry's `token` is the (integer) token.
 * - `mrc100payment` (per player) and `mrc030reward` (per rewarded address): the payment layout.
 *   `mrc100paymentrecv` (the receiver): [to, tokenId, tag, userlist JSON, gameid, gamememo];
 *   `mrc030payment` (the payer): [from, tokenId, userlist JSON, gameid, gamememo, sig, nonce]
 *   (CC-t `mrc100.go`).
 */

/** Token record changes of the STO-DEX era: [tokenId, arg, sig, nonce]. */
function tokenSetting(summary: string, argIsParty: boolean): JobDecoder {
  return {
    priority: PRIORITY.secondary,
    view: (e) => {
      const p = params(e);
      return {
        summary,
        from: str(e.values?.['owner']),
        to: argIsParty ? (p[1] ?? '') : '',
        amount: '0',
        tokenId: tokenOf(e, p[0]),
      };
    },
    activity: (e) => [otherActivity(e)],
  };
}

/** One side of an exchange, by the indexes of its from, to, amount and token in the 20 args. */
function exchangeSide(summary: string, priority: number, at: [number, number, number, number]): JobDecoder {
  return {
    priority,
    view: (e): EntryView => {
      const p = params(e);
      return {
        summary,
        from: p[at[0]] ?? '',
        to: p[at[1]] ?? '',
        amount: lenientAmount(p[at[2]]),
        tokenId: optionalInt(p[at[3]]),
      };
    },
    activity: (e) => [otherActivity(e)],
  };
}

/** A payer or receiver of a whole user list: the total of the list. */
function listTotal(summary: string, side: 'from' | 'to', listIndex: number): JobDecoder {
  return {
    priority: PRIORITY.secondary,
    view: (e) => {
      const p = params(e);
      const party = p[0] ?? '';
      return {
        summary,
        from: side === 'from' ? party : '',
        to: side === 'to' ? party : '',
        amount: sumAmounts(jsonArray(p[listIndex])),
        tokenId: optionalInt(p[1]),
      };
    },
    activity: (e) => [otherActivity(e)],
  };
}

function payment(summary: string): JobDecoder {
  return { priority: PRIORITY.payout, view: paymentView(summary), activity: (e) => [otherActivity(e)] };
}

const mrc100Log: JobDecoder = {
  priority: PRIORITY.secondary,
  record: 'other',
  view: (e: RawEntry) => {
    const p = params(e);
    return {
      summary: 'MRC-100 log',
      from: p[2] ?? '',
      to: '',
      amount: '0',
      tokenId: optionalInt(p[1]) ?? optionalInt(e.token),
    };
  },
  activity: (e) => [otherActivity(e)],
};

export const legacyFamily: Family = {
  name: 'legacy',
  jobs: {
    [LEGACY.setBase]: tokenSetting('Token set base', false),
    [LEGACY.tokenAddTarget]: tokenSetting('Token add target', false),
    [LEGACY.tokenRemoveTarget]: tokenSetting('Token remove target', false),
    [LEGACY.tokenAddLogger]: tokenSetting('Token add logger', true),
    [LEGACY.tokenRemoveLogger]: tokenSetting('Token remove logger', true),
    [LEGACY.exchange]: exchangeSide('Exchange', PRIORITY.secondary, [0, 9, 1, 2]),
    [LEGACY.exchangePair]: exchangeSide('Exchange', PRIORITY.payout, [9, 0, 10, 11]),
    [LEGACY.exchangeFee]: exchangeSide('Exchange fee', PRIORITY.minor, [0, 3, 4, 5]),
    [LEGACY.exchangeFeePair]: exchangeSide('Exchange fee', PRIORITY.minor, [9, 12, 13, 14]),
    [LEGACY.mrc100Log]: mrc100Log,
    [LEGACY.mrc100Payment]: payment('MRC-100 payment'),
    [LEGACY.mrc100PaymentRecv]: listTotal('MRC-100 payment received', 'to', 3),
    [LEGACY.mrc030Reward]: payment('MRC-030 reward'),
    [LEGACY.mrc030Payment]: listTotal('MRC-030 payment', 'from', 2),
  } satisfies Record<LegacyJobType, JobDecoder>,
};
