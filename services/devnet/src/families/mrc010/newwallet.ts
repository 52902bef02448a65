import { addressChecksum, MRC010 } from '@mtc/domain';
import { expectArgs, setAddressInfo } from '../../chaincode/base.ts';
import { ChaincodeError } from '../../chaincode/errors.ts';
import { creditEntry, type Wallet } from './records.ts';
import { fakePublicKeyPem, fakeWords } from '../../jobs/client.ts';
import type { Job } from '../../jobs/job.ts';

/** CC-t `base.go` NewWallet: a new address with a first balance entry as credits make them. */
export const newWalletJob: Job = {
  fcn: 'newwallet',
  weight: 15,
  writes: [MRC010.newWallet],
  plan({ world, rng, walletCap }) {
    if (world.wallets.length >= walletCap) return null;
    // One key may own several addresses (the node indexes ADDR_BY_PUBLICKEY for that).
    const reused = world.wallets.length > 0 && rng.chance(0.1);
    const publicKey = reused ? world.wallet(rng.pick(world.wallets))!.password : fakePublicKeyPem(rng);
    const addinfo = rng.chance(0.7) ? '' : fakeWords(rng, 1, 4);
    return { fcn: 'newwallet', args: [publicKey, addinfo] };
  },
  execute(stub, { args }) {
    const [publicKey, addinfo] = expectArgs(
      args,
      2,
      '1000,newwallet operation must include five arguments : publicKey, addinfo',
    );
    // The Go loop means to retry on a taken address but never does; retrying keeps the devnet sane.
    let address: string;
    do {
      const body = stub.randomString(30);
      address = `MT${body}${addressChecksum(body)}`;
    } while (stub.getState(address) !== undefined);
    if (publicKey.length < 40) throw new ChaincodeError('3103,Invalid Public key');

    const wallet: Wallet = {
      id: address,
      regdate: stub.now,
      password: publicKey,
      addinfo,
      job_type: 'NewWallet',
      job_args: '',
      jobdate: stub.now,
      balance: [creditEntry('0', 0, 0)],
      mrc010: null,
      mrc402: null,
      mrc800: null,
      pending: null,
      nonce: stub.randomString(40),
    };
    setAddressInfo(stub, wallet, MRC010.newWallet, [address, publicKey, addinfo]);
  },
};
