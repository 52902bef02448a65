import { getAddressInfo } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { wrap, type Dex402Status } from './chaincode.ts';
import { dataAssign, numericDataCheck } from '../../chaincode/util.ts';
import { isMtAddress } from '../../world/address.ts';
import type { Dex402Order } from './records.ts';
import type { Stub } from '../../world/stub.ts';

/**
 * The platform arguments of mrc402sell and mrc402auction (name, URL, fee address, commission 0–10 %
 * with two decimals), each optional, checked as CC-t `mrc402.go` does (255-byte limits, its own
 * messages). A fee address must be an existing wallet (the check reads it).
 */
export function assignPlatform(
  stub: Stub,
  dex: Dex402Order,
  [name, url, address, commission]: readonly [string, string, string, string],
): void {
  const check = <T>(assign: () => T, prefix: string): T => {
    try {
      return assign();
    } catch (error) {
      throw wrap(error, prefix);
    }
  };
  dex.platform_name =
    check(() => dataAssign(name, 'text', 1, 255, true), '3005,Url value error : ') ?? dex.platform_name;
  dex.platform_url = check(() => dataAssign(url, 'url', 1, 255, true), '3005,Url value error : ') ?? dex.platform_url;
  dex.platform_address =
    check(() => dataAssign(address, 'address', 40, 40, true), '3005,Data value error : ') ?? dex.platform_address;
  if (isMtAddress(dex.platform_address)) {
    check(() => getAddressInfo(stub, dex.platform_address), '3005,PlatformAddress not found : ');
  }
  dex.platform_commission =
    check(() => numericDataCheck(commission, '0.00', '10.00', 2, true), '3005,Data value error : ') ??
    dex.platform_commission;
}

/**
 * The status switches of the DEX402 functions: `allowed` passes, any other status is refused with
 * the message that function gives it.
 */
export function expectStatus(
  status: Dex402Status,
  allowed: readonly Dex402Status[],
  messages: Partial<Record<Dex402Status, string>>,
): void {
  if (allowed.includes(status)) return;
  throw new ChaincodeError(messages[status] ?? '3004,DEX Item status is unknown');
}

/** The messages most DEX402 switches share. */
export const STATUS_MESSAGES: Readonly<Partial<Record<Dex402Status, string>>> = {
  cancelled: '3004,DEX Item is already canceled',
  soldout: '3004,DEX Item is already traded',
  auction_end: '3004,DEX Item is already end, use auction finish',
  auction_finish: '3004,DEX Item is already finished',
};
