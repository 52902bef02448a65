import { MRC010 } from '@mtc/domain';
import { expectArgs, getAddressInfo, getSigner, parsePositive, setAddressInfo } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { jsonArgument } from '../../chaincode/util.ts';
import type { Rng } from '../../rng.ts';
import { creditEntry, type Mrc010Token, TOKEN_MAX_NO, tokenKey, type TokenReserve, type TokenTier } from './records.ts';
import { encodeToken } from './codec.ts';
import { mrc010Steps } from './versions.ts';
import { capitalise, fakePngDataUri, fakeSignature, fakeWords } from '../../jobs/client.ts';
import { type Job, type PlanContext, portion } from '../../jobs/job.ts';

/**
 * CC-t `token.go` TokenRegister; job_args is the token record itself (the entry's parameters an object).
 * Quirks kept: reserves are appended as they are, a past unlockdate too (no MRC010Add normalisation), and
 * for token 0 the value overwrites the first entry; each reserve is checked against totalsupply alone,
 * not their sum; the owner's nonce rotation is never written; only its own reserve credits the owner.
 */
export const tokenRegisterJob: Job = {
  fcn: 'tokenRegister',
  weight: 1,
  writes: [MRC010.tokenRegister, MRC010.tokenReserve],
  plan(ctx) {
    const { world, rng, now } = ctx;
    if (world.wallets.length === 0) return null;
    const owner = world.wallet(rng.pick(world.wallets))!;
    const decimal = rng.weighted<number>([
      [8, 4],
      [18, 3],
      [0, 2],
      [2, 1],
      [6, 1],
      [rng.int(0, 18), 1],
    ]);
    const total = BigInt(rng.int(1, 9_999)) * 10n ** BigInt(rng.int(2, 8) + decimal);
    const reserved = rng.chance(0.7) ? total : portion(rng, total, 50, 95);
    const reserve = planReserves(ctx, owner.id, reserved);
    const symbol = randomSymbol(rng);
    const word = () => capitalise(fakeWords(rng, 1, 1));
    const name = rng.chance(0.5) ? `${word()} ${rng.pick(['Token', 'Coin', 'Point', 'Cash'])}` : `${word()} ${word()}`;
    const request: ClientToken = {
      owner: owner.id,
      symbol,
      name,
      totalsupply: total.toString(),
      reservedamount: reserved.toString(),
      remainamount: (total - reserved).toString(),
      burnningamount: '0',
      softcap: '0',
      hardcap: '0',
      decimal,
      url: `https://${symbol.toLowerCase()}.devnet.example/`,
      information: fakeWords(rng, 3, 12),
      image: fakePngDataUri(rng),
      reserve: reserve.map((r) => ({ ...r, unlockdate: planReserveLock(rng, now) })),
      tier: [],
      status: 'normal',
      type: '010',
    };
    return tokenRegisterCall(rng, request, owner.nonce);
  },
  execute(stub, { args }) {
    const [data, , nonce] = expectArgs(
      args,
      3,
      '1000,tokenRegister must include one arguments : tokeninfo, sign, tkey',
    );
    const token = decodeClientToken(data, mrc010Steps(stub.chaincode).tokenId);
    if (token.symbol.length < 1) throw new ChaincodeError('1002,Symbol is empty');
    if (token.name.length < 1) throw new ChaincodeError('1001,Name is empty');
    if (token.decimal < 0) throw new ChaincodeError('1003,The decimal number must be bigger then 0');
    if (token.decimal > 18) throw new ChaincodeError('1004,The decimal number must be less than 18');

    // strconv.ParseInt of the stored counter; a parse error reads as 0, as in the Go code.
    const maxNo = stub.getState(TOKEN_MAX_NO);
    const id = maxNo === undefined ? 0 : (typeof maxNo === 'string' ? Number.parseInt(maxNo, 10) || 0 : 0) + 1;
    getSigner(stub, token.owner, nonce);

    if (token.type.length === 0) token.type = '010';
    token.token = id;
    token.jobdate = stub.now;
    token.createdate = stub.now;
    token.job_type = MRC010.tokenRegister;
    token.id = String(id);
    // The legacy struct has no id: neither the record nor its job_args carries one (codec.ts).
    token.job_args = JSON.stringify(encodeToken(token, stub.chaincode));
    stub.putState(tokenKey(id), encodeToken(token, stub.chaincode));

    const supply = parsePositive(token.totalsupply, '1101,TotalSupply is not positive integer');
    for (const r of token.reserve ?? []) {
      const value = parsePositive(r.value, `1102,Reserve amount ${r.value} is not interger`);
      let holder;
      try {
        holder = getAddressInfo(stub, r.address);
      } catch {
        throw new ChaincodeError(`1102,Token reserve address ${r.address} not found`);
      }
      if (id === 0) {
        holder.balance[0] = { ...holder.balance[0]!, balance: r.value };
      } else {
        holder.balance.push(creditEntry(r.value, id, r.unlockdate));
      }
      if (supply - value < 0n) throw new ChaincodeError('1103,The reserve amount is greater than totalsupply');
      setAddressInfo(stub, holder, MRC010.tokenReserve, [token.owner, r.address, r.value, String(id)]);
    }
    stub.putState(TOKEN_MAX_NO, String(id));
  },
};

/** Any subset of the record's fields. */
export type ClientToken = Partial<Omit<Mrc010Token, 'reserve' | 'tier'>> & {
  reserve?: TokenReserve[];
  tier?: Partial<TokenTier>[];
};

export function tokenRegisterCall(rng: Rng, token: ClientToken, ownerNonce: string) {
  return { fcn: 'tokenRegister', args: [JSON.stringify(token), fakeSignature(rng), ownerNonce] };
}

/** Reserve holders (usually the owner plus up to two others) sharing `reserved`, all shares > 0. */
function planReserves(ctx: PlanContext, owner: string, reserved: bigint): TokenReserve[] {
  const { world, rng } = ctx;
  const holders = new Set<string>(rng.chance(0.8) ? [owner] : []);
  const target = holders.size + rng.int(holders.size === 0 ? 1 : 0, 2);
  for (let i = 0; i < target * 3 && holders.size < target; i++) holders.add(rng.pick(world.wallets));
  const list = [...holders];
  const weights = list.map(() => BigInt(rng.int(1, 100)));
  const weightSum = weights.reduce((a, b) => a + b, 0n);
  const values = weights.map((w) => (reserved * w) / weightSum);
  values[0] = values[0]! + reserved - values.reduce((a, b) => a + b, 0n);
  if (values.some((v) => v <= 0n)) return [{ address: list[0]!, value: reserved.toString(), unlockdate: 0 }];
  return list.map((address, i) => ({ address, value: values[i]!.toString(), unlockdate: 0 }));
}

function planReserveLock(rng: Rng, now: number): number {
  const roll = rng.next();
  if (roll < 0.1) return now + rng.int(600, 86_400);
  if (roll < 0.2) return now + rng.int(86_400, 365 * 86_400);
  if (roll < 0.25) return now - rng.int(86_400, 30 * 86_400);
  return 0;
}

function randomSymbol(rng: Rng): string {
  return Array.from({ length: rng.int(3, 5) }, () => String.fromCharCode(65 + rng.int(0, 25))).join('');
}

/** json.Unmarshal of the client's token into a zero TMRC010 (CC-22 Token: no `id`); nil slices, maps: null. */
function decodeClientToken(text: string, withId: boolean): Mrc010Token {
  const fail = () => new ChaincodeError('4105,Invalid token Data format');
  const { value, string: str, int } = jsonArgument(text, fail);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fail();
  const src = value as Record<string, unknown>;
  const list = <T>(key: string, decode: (item: Record<string, unknown>) => T): T[] | null => {
    const v = src[key];
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v)) throw fail();
    return v.map((item: unknown) => {
      if (typeof item !== 'object' || item === null) throw fail();
      return decode(item as Record<string, unknown>);
    });
  };
  const intMap = (key: string): Record<string, number> | null => {
    const v = src[key];
    if (v === undefined || v === null) return null;
    if (typeof v !== 'object' || Array.isArray(v)) throw fail();
    const out: Record<string, number> = {};
    for (const k of Object.keys(v).sort()) out[k] = int(v, k);
    return out;
  };

  return {
    id: withId ? str(src, 'id') : '',
    owner: str(src, 'owner'),
    symbol: str(src, 'symbol'),
    createdate: int(src, 'createdate'),
    totalsupply: str(src, 'totalsupply'),
    reservedamount: str(src, 'reservedamount'),
    remainamount: str(src, 'remainamount'),
    burnningamount: str(src, 'burnningamount'),
    softcap: str(src, 'softcap'),
    hardcap: str(src, 'hardcap'),
    token: int(src, 'token'),
    name: str(src, 'name'),
    information: str(src, 'information'),
    url: str(src, 'url'),
    image: str(src, 'image'),
    decimal: int(src, 'decimal'),
    reserve: list('reserve', (r) => ({
      address: str(r, 'address'),
      value: str(r, 'value'),
      unlockdate: int(r, 'unlockdate'),
    })),
    tier: list('tier', (t) => ({
      startdate: int(t, 'startdate'),
      enddate: int(t, 'enddate'),
      supply: str(t, 'supply'),
      rate: int(t, 'rate'),
      tiersn: int(t, 'tiersn'),
      name: str(t, 'name'),
      investormin: str(t, 'investormin'),
      remainamount: str(t, 'remainamount'),
      unlockdate: int(t, 'unlockdate'),
      expirepolicy: str(t, 'expirepolicy'),
    })),
    status: str(src, 'status'),
    targettoken: intMap('targettoken'),
    basetoken: int(src, 'basetoken'),
    type: str(src, 'type'),
    logger: intMap('logger'),
    job_type: str(src, 'job_type'),
    job_args: str(src, 'job_args'),
    jobdate: int(src, 'jobdate'),
  };
}
