import type { KnownActivity } from '../events.ts';
import { MRC010, type Mrc010JobType } from '../job-types.ts';
import type { RawEntry } from '../node.ts';
import {
  int,
  jsonArray,
  lenientAmount,
  params,
  paymentView,
  PRIORITY,
  record,
  str,
  sumAmounts,
  summaryFromView,
  tokenOf,
  type EntryView,
  type Family,
  type JobDecoder,
} from './family.ts';

/**
 * Base wallet and MRC-010 token jobs (metacoin-chain.md §4.1; CC-t `base.go`, `token.go`):
 * wallets, transfers, multitransfers, token registration with its reserves, update, mint, burn.
 */

/** The payment layout as a transfer: [from, to, amount, tokenId, sig, unlockdate, tag, memo, nonce]. */
function transferActivity(p: readonly string[], jobType: string): KnownActivity {
  return {
    kind: 'transfer',
    jobType,
    from: p[0] ?? '',
    to: p[1] ?? '',
    amount: lenientAmount(p[2]),
    tokenId: int(p[3]),
    unlockdate: Math.max(0, int(p[5])),
    tag: p[6] ?? '',
    memo: p[7] ?? '',
  };
}

const transfer: JobDecoder = {
  priority: PRIORITY.main,
  view: paymentView('Transfer'),
  activity: (e) => [transferActivity(params(e), e.type)],
};

const receive: JobDecoder = {
  priority: PRIORITY.payout,
  view: paymentView('Receive'),
  // A plain transfer writes `transfer` + `receive` with the same arguments: count it once. In a
  // multitransfer each `receive` is one recipient's transfer.
  activity: (e, tx) =>
    tx.has(MRC010.transfer)
      ? []
      : [transferActivity(params(e), tx.has(MRC010.multiTransfer) ? MRC010.multiTransfer : e.type)],
};

/** multitransfer call args: [from, transferlist JSON [{address, amount, unlockdate, tag, memo}], tokenId, sig, nonce]. */
function multiTransferView(e: RawEntry): EntryView & { first: string } {
  const p = params(e);
  const list = jsonArray(p[1]).map(record);
  const first = str(list[0]?.['address']);
  return {
    summary: 'Multi transfer',
    from: p[0] ?? '',
    to: list.length === 1 ? first : '',
    amount: sumAmounts(list),
    tokenId: tokenOf(e, p[2]),
    first,
  };
}

const multiTransfer: JobDecoder = {
  priority: PRIORITY.main - 5,
  view: (e) => {
    const { first: _, ...view } = multiTransferView(e);
    return view;
  },
  // The list shows the first recipient even when there are several (the entry view does not).
  summary: (e) => {
    const { first, ...view } = multiTransferView(e);
    return { ...summaryFromView(e, view), to: first };
  },
};

const newWallet: JobDecoder = {
  priority: PRIORITY.main - 30,
  view: (e) => ({ summary: 'New wallet', from: '', to: e.datakey || (params(e)[0] ?? ''), amount: '0', tokenId: null }),
  summary: (e) => ({ type: e.type, from: '', to: e.datakey || (params(e)[0] ?? ''), amount: '0', token: '0' }),
  activity: (e) => {
    const address = e.datakey || params(e)[0];
    return address ? [{ kind: 'walletCreate', jobType: e.type, address }] : [];
  },
};

/** tokenRegister: parameters is the token object itself (with `token` = the new id). */
const tokenRegister: JobDecoder = {
  priority: PRIORITY.main - 10,
  view: (e) => {
    const t = record(e.parameters);
    return {
      summary: 'Token create',
      from: str(t['owner']),
      to: '',
      amount: lenientAmount(t['totalsupply']),
      tokenId: tokenOf(e, t['token']),
    };
  },
  activity: (e) => {
    const t = record(e.parameters);
    const tokenId = tokenOf(e, t['token']);
    if (tokenId === null) return [];
    return [
      {
        kind: 'tokenCreate',
        jobType: e.type,
        tokenId,
        owner: str(t['owner']),
        totalsupply: lenientAmount(t['totalsupply']),
        name: str(t['name']),
        symbol: str(t['symbol']),
        decimal: int(t['decimal']),
      },
    ];
  },
};

/** token_reserve → each reserve address: [owner, address, value, tokenId]; the lock is in the register entry. */
const tokenReserve: JobDecoder = {
  priority: PRIORITY.payout,
  view: paymentView('Token reserve'),
  activity: (e, tx) => {
    const p = params(e);
    const tokenId = tokenOf(e, p[3]);
    if (tokenId === null) return [];
    const reserve = record(tx.find(MRC010.tokenRegister)?.parameters)['reserve'];
    const match = (Array.isArray(reserve) ? reserve : []).map(record).find((r) => r['address'] === p[1]);
    return [
      {
        kind: 'tokenReserve',
        jobType: e.type,
        tokenId,
        from: p[0] ?? '',
        to: p[1] ?? '',
        amount: lenientAmount(p[2]),
        unlockdate: Math.max(0, int(match?.['unlockdate'])),
      },
    ];
  },
};

/** tokenUpdate (tokenId, url, info, image, sig, nonce) → the token record; image changes only if given. */
const tokenUpdate: JobDecoder = {
  priority: PRIORITY.main - 20,
  view: (e) => {
    const p = params(e);
    return { summary: 'Token update', from: str(e.values?.['owner']), to: '', amount: '0', tokenId: tokenOf(e, p[0]) };
  },
  activity: (e) => {
    const p = params(e);
    const tokenId = tokenOf(e, p[0]);
    if (tokenId === null) return [];
    return [
      {
        kind: 'tokenUpdate',
        jobType: e.type,
        tokenId,
        owner: str(e.values?.['owner']),
        // What the record holds after the write (the chaincode compares before it writes).
        url: e.values ? str(e.values['url']) : (p[1] ?? ''),
        information: e.values ? str(e.values['information']) : (p[2] ?? ''),
        imageChanged: (p[3] ?? '') !== '',
      },
    ];
  },
};

/**
 * tokenIncrease / tokenBurning (tokenId, amount, memo, sig, nonce) write the token record and the
 * owner's wallet (`ownerIncrease` / `ownerBurning`) with the same arguments. Legacy calls had no
 * memo: [tokenId, amount, sig, nonce].
 */
function supplyChange(kind: 'tokenMint' | 'tokenBurn', ownerType: string): JobDecoder {
  const mint = kind === 'tokenMint';
  return {
    priority: PRIORITY.main - 15,
    view: (e) => {
      const p = params(e);
      const owner = str(e.values?.['owner']);
      return {
        summary: mint ? 'Token mint' : 'Token burn',
        from: owner,
        to: mint ? owner : '',
        amount: lenientAmount(p[1]),
        tokenId: tokenOf(e, p[0]),
      };
    },
    activity: (e, tx) => {
      const p = params(e);
      const tokenId = tokenOf(e, p[0]);
      if (tokenId === null) return [];
      return [
        {
          kind,
          jobType: e.type,
          tokenId,
          owner: tx.find(ownerType)?.datakey ?? str(e.values?.['owner']),
          amount: lenientAmount(p[1]),
          memo: p.length >= 5 ? (p[2] ?? '') : '',
        },
      ];
    },
  };
}

/** The owner's wallet side of a mint or burn: the activity comes from the token record entry. */
function ownerSupplyChange(mint: boolean): JobDecoder {
  return {
    priority: PRIORITY.payout,
    view: (e) => {
      const p = params(e);
      const owner = e.datakey ?? '';
      return {
        summary: mint ? 'Token mint' : 'Token burn',
        from: mint ? '' : owner,
        to: mint ? owner : '',
        amount: lenientAmount(p[1]),
        tokenId: tokenOf(e, p[0]),
      };
    },
  };
}

export const mrc010Family: Family = {
  name: 'MRC-010',
  jobs: {
    [MRC010.newWallet]: newWallet,
    [MRC010.transfer]: transfer,
    [MRC010.receive]: receive,
    [MRC010.multiTransfer]: multiTransfer,
    [MRC010.tokenRegister]: tokenRegister,
    [MRC010.tokenReserve]: tokenReserve,
    [MRC010.tokenUpdate]: tokenUpdate,
    [MRC010.tokenIncrease]: supplyChange('tokenMint', MRC010.ownerIncrease),
    [MRC010.ownerIncrease]: ownerSupplyChange(true),
    [MRC010.tokenBurning]: supplyChange('tokenBurn', MRC010.ownerBurning),
    [MRC010.ownerBurning]: ownerSupplyChange(false),
  } satisfies Record<Mrc010JobType, JobDecoder>,
};
