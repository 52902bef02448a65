import { fakePngDataUri } from './client.ts';
import type { Call, PlanContext } from './job.ts';
import { newWalletJob } from '../families/mrc010/newwallet.ts';
import { tokenRegisterCall } from '../families/mrc010/token-register.ts';

/** A transaction of a scripted block: a planned chaincode call, or a chaincode lifecycle commit. */
export type ScriptedTx = { readonly kind: 'call'; plan(ctx: PlanContext): Call } | { readonly kind: 'lifecycle' };

/** 800,000,000 MTC at 8 decimals: the chaincode's (unused) InitSupply constant, in base units. */
const MTC_SUPPLY = 800_000_000n * 10n ** 8n;
/** MTC's supply split over the genesis wallets, per cent. */
const MTC_SHARES = [40n, 25n, 15n, 10n, 10n] as const;

/** Block 1: the genesis wallets, then MTC reserved to them. Block 2: an upgrade (a lifecycle entry to skip). */
export function scriptedBlock(height: number): readonly ScriptedTx[] | undefined {
  if (height === 1) {
    const wallets: ScriptedTx[] = Array.from(MTC_SHARES, () => ({
      kind: 'call',
      plan: (ctx: PlanContext) => newWalletJob.plan(ctx)!,
    }));
    return [...wallets, { kind: 'call', plan: planMtc }];
  }
  if (height === 2) return [{ kind: 'lifecycle' }];
  return undefined;
}

function planMtc({ world, rng }: PlanContext): Call {
  const holders = world.wallets.slice(0, MTC_SHARES.length);
  const owner = world.wallet(holders[0]!)!;
  return tokenRegisterCall(
    rng,
    {
      owner: owner.id,
      symbol: 'MTC',
      name: 'Metacoin',
      totalsupply: MTC_SUPPLY.toString(),
      reservedamount: MTC_SUPPLY.toString(),
      remainamount: '0',
      burnningamount: '0',
      softcap: '0',
      hardcap: '0',
      decimal: 8,
      url: 'https://metacoin.network/',
      information: 'Metacoin, the base coin of the network',
      image: fakePngDataUri(rng),
      reserve: holders.map((address, i) => ({
        address,
        value: ((MTC_SUPPLY * MTC_SHARES[i]!) / 100n).toString(),
        unlockdate: 0,
      })),
      tier: [],
      status: 'normal',
      type: '010',
    },
    owner.nonce,
  );
}
