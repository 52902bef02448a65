import { MRC010 } from '@mtc/domain';
import { expectArgs, getSigner } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { getMrc010, setMrc010 } from './token.ts';
import { fakePngDataUri, fakeSignature, fakeWords } from '../../jobs/client.ts';
import type { Job } from '../../jobs/job.ts';

/** CC-t `token.go` TokenUpdate (url not validated). Quirk kept (as tokenRegister): the owner's new nonce is not saved. */
export const tokenUpdateJob: Job = {
  fcn: 'tokenUpdate',
  weight: 1,
  writes: [MRC010.tokenUpdate],
  plan({ world, rng }) {
    if (world.tokens.length === 0) return null;
    const tokenId = rng.pick(world.tokens);
    const token = world.token(tokenId)!;
    const owner = world.wallet(token.owner);
    if (!owner) return null;
    const url = rng.chance(0.4)
      ? `https://${token.symbol.toLowerCase()}.devnet.example/${fakeWords(rng, 1, 1)}`
      : token.url;
    let info = rng.chance(0.6) ? fakeWords(rng, 3, 12) : token.information;
    const image = rng.chance(0.25) ? fakePngDataUri(rng) : '';
    if (url === token.url && info === token.information && (image === '' || image === token.image)) {
      info = `${token.information} ${fakeWords(rng, 1, 3)}`.trim();
    }
    return {
      fcn: 'tokenUpdate',
      args: [String(tokenId), url, info, image, fakeSignature(rng), owner.nonce],
    };
  },
  execute(stub, { args }) {
    const [tokenId, url, info, image, , nonce] = expectArgs(
      args,
      6,
      '1000,tokenRemoveTarget operation must include four arguments : TokenID, url, info, image, sign, tkey',
    );
    const { token } = getMrc010(stub, tokenId);
    getSigner(stub, token.owner, nonce);
    if (token.url === url && token.information === info && (image.length === 0 || token.image === image)) {
      throw new ChaincodeError('4900,No data change');
    }
    token.url = url;
    token.information = info;
    if (image.length > 0) token.image = image;
    setMrc010(stub, token, MRC010.tokenUpdate, args);
  },
};
