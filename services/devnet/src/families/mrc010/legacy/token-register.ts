import { MRC010 } from '@mtc/domain';
import { expectArgs, getAddressInfo, nonceCheck, parsePositive, setAddressInfo } from '../../../chaincode/base.ts';
import { ChaincodeError } from '../../../chaincode/errors.ts';
import { encodeToken } from '../codec.ts';
import type { Mrc010Token } from '../records.ts';
import { TOKEN_MAX_NO, tokenKey } from '../records.ts';
import type { Job } from '../../../jobs/job.ts';
import { tokenRegisterJob } from '../token-register.ts';

/** Share of legacy registrations that are MRC-100 game tokens (type "100" or "101"), which can log. */
const GAME_TOKEN_SHARE = 0.35;

/**
 * Legacy `tokenRegister` (CC-22 `token.go` TokenRegister): as today's — `tokenRegister` on
 * `TOKEN_DATA_<n>` with the token itself as job_args, `token_reserve` [owner, address, value, n] on
 * each reserve address, the same quirks (reserves appended with their unlockdate as given, each
 * checked against totalsupply alone, the owner's nonce rotation never saved) — but the legacy Token
 * struct has no `id`, so neither the record nor its job_args carries one, and reserve entries have
 * three fields. Some legacy tokens are MRC-100 game tokens (type "100"/"101"), the only ones
 * mrc100Log accepts.
 */
export const legacyTokenRegisterJob: Job = {
  fcn: 'tokenRegister',
  weight: 2,
  writes: [MRC010.tokenRegister, MRC010.tokenReserve],
  plan(ctx) {
    const call = tokenRegisterJob.plan(ctx);
    if (!call || !ctx.rng.chance(GAME_TOKEN_SHARE)) return call;
    const token = JSON.parse(call.args[0]!) as Record<string, unknown>;
    token.type = ctx.rng.chance(0.7) ? '100' : '101';
    return { ...call, args: [JSON.stringify(token), ...call.args.slice(1)] };
  },
  execute(stub, { args }) {
    const [data, , nonce] = expectArgs(
      args,
      3,
      '1000,tokenRegister must include one arguments : tokeninfo, sign, tkey',
    );
    const token = decodeLegacyToken(data);
    if (token.symbol.length < 1) throw new ChaincodeError('1002,Symbol is empty');
    if (token.name.length < 1) throw new ChaincodeError('1001,Name is empty');
    if (token.decimal < 0) throw new ChaincodeError('1003,The decimal number must be bigger then 0');
    if (token.decimal > 18) throw new ChaincodeError('1004,The decimal number must be less than 18');

    const maxNo = stub.getState(TOKEN_MAX_NO);
    const id = maxNo === undefined ? 0 : (typeof maxNo === 'string' ? Number.parseInt(maxNo, 10) || 0 : 0) + 1;
    const owner = getAddressInfo(stub, token.owner);
    nonceCheck(stub, owner, nonce);

    if (token.type.length === 0) token.type = '010';
    token.id = String(id);
    token.token = id;
    token.jobdate = stub.now;
    token.createdate = stub.now;
    token.job_type = MRC010.tokenRegister;
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
        holder.balance.push({
          balance: r.value,
          token: id,
          unlockdate: r.unlockdate,
          saleamount: '',
          auctionamount: '',
        });
      }
      if (supply - value < 0n) throw new ChaincodeError('1103,The reserve amount is greater than totalsupply');
      setAddressInfo(stub, holder, MRC010.tokenReserve, [token.owner, r.address, r.value, String(id)]);
    }
    stub.putState(TOKEN_MAX_NO, String(id));
  },
};

/**
 * json.Unmarshal of the client's token into a zero CC-22 Token, held in the current shape (the id is
 * set by the caller and dropped again when written): absent fields take Go zero values (nil slices
 * and maps null), a wrongly typed one fails the call.
 */
function decodeLegacyToken(text: string): Mrc010Token {
  const fail = () => new ChaincodeError('4105,Invalid token Data format');
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw fail();
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw fail();
  const src = raw as Record<string, unknown>;
  const str = (v: unknown): string => {
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw fail();
    return v;
  };
  const int = (v: unknown): number => {
    if (v === undefined || v === null) return 0;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw fail();
    return v;
  };
  const objects = (v: unknown): Record<string, unknown>[] | null => {
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || v.some((i) => typeof i !== 'object' || i === null)) throw fail();
    return v as Record<string, unknown>[];
  };
  const intMap = (v: unknown): Record<string, number> | null => {
    if (v === undefined || v === null) return null;
    if (typeof v !== 'object' || Array.isArray(v)) throw fail();
    const out: Record<string, number> = {};
    for (const k of Object.keys(v).sort()) out[k] = int((v as Record<string, unknown>)[k]);
    return out;
  };
  return {
    id: '',
    owner: str(src.owner),
    symbol: str(src.symbol),
    createdate: int(src.createdate),
    totalsupply: str(src.totalsupply),
    reservedamount: str(src.reservedamount),
    remainamount: str(src.remainamount),
    burnningamount: str(src.burnningamount),
    softcap: str(src.softcap),
    hardcap: str(src.hardcap),
    token: int(src.token),
    name: str(src.name),
    information: str(src.information),
    url: str(src.url),
    image: str(src.image),
    decimal: int(src.decimal),
    reserve:
      objects(src.reserve)?.map((r) => ({
        address: str(r.address),
        value: str(r.value),
        unlockdate: int(r.unlockdate),
      })) ?? null,
    tier:
      objects(src.tier)?.map((t) => ({
        startdate: int(t.startdate),
        enddate: int(t.enddate),
        supply: str(t.supply),
        rate: int(t.rate),
        tiersn: int(t.tiersn),
        name: str(t.name),
        investormin: str(t.investormin),
        remainamount: str(t.remainamount),
        unlockdate: int(t.unlockdate),
        expirepolicy: str(t.expirepolicy),
      })) ?? null,
    status: str(src.status),
    targettoken: intMap(src.targettoken),
    basetoken: int(src.basetoken),
    type: str(src.type),
    logger: intMap(src.logger),
    job_type: str(src.job_type),
    job_args: str(src.job_args),
    jobdate: int(src.jobdate),
  };
}
