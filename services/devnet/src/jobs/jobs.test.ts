import { isAddress } from '@mtc/domain';
import { describe, expect, it } from 'vitest';
import { buildBlock } from '../chain/block-builder.ts';
import { ChaincodeError } from '../chaincode/errors.ts';
import { createRng, type Rng } from '../rng.ts';
import type { Mrc010Token, Wallet } from '../families/mrc010/records.ts';
import { createStub } from '../world/stub.ts';
import { createWorld, type World } from '../world/world.ts';
import type { Call, Job } from './job.ts';
import { multiTransferJob } from '../families/mrc010/multitransfer.ts';
import { newWalletJob } from '../families/mrc010/newwallet.ts';
import { DEFAULT_JOBS, pickJob } from './registry.ts';
import { tokenBurningJob, tokenIncreaseJob } from '../families/mrc010/token-supply.ts';
import { tokenRegisterCall, tokenRegisterJob } from '../families/mrc010/token-register.ts';
import { transferJob } from '../families/mrc010/transfer.ts';

const NOW = 1_700_000_000;

/** A world after the genesis block: five wallets holding all of MTC (token 0). */
function genesis(): { world: World; rng: Rng; wallets: Wallet[] } {
  const world = createWorld();
  const rng = createRng(11);
  buildBlock({ seed: 11, world, rng, jobs: DEFAULT_JOBS, walletCap: 100, invalidTxRate: 0, emptyBlockRate: 0 }, 1, NOW);
  return { world, rng, wallets: world.wallets.map((a) => world.wallet(a)!) };
}

function run(world: World, rng: Rng, job: Job, call: Call, now = NOW + 10) {
  const { stub, effects } = createStub(world, now, rng);
  job.execute(stub, call);
  const fx = effects();
  const byKey = new Map(fx.writes.map((w) => [w.key, w.value]));
  return { ...fx, wallet: (a: string) => byKey.get(a) as Wallet, value: (k: string) => byKey.get(k) };
}

const transfer = (from: Wallet, to: string, amount: string, unlockdate = '0', token = '0'): Call => ({
  fcn: 'transfer',
  args: [from.id, to, amount, token, 'c2ln', unlockdate, 'tag', 'memo', from.nonce],
});

describe('newwallet', () => {
  it('creates a CRC-checked address holding the TWallet JSON in Go field order', () => {
    const { world, rng } = genesis();
    const call = newWalletJob.plan({ world, rng, now: NOW, walletCap: 100 })!;
    const { writes } = run(world, rng, newWalletJob, call);
    expect(writes).toHaveLength(1);
    const { key, value } = writes[0]!;
    const wallet = value as Wallet;
    expect(isAddress(key)).toBe(true);
    expect(Object.keys(wallet)).toEqual([
      'id',
      'regdate',
      'password',
      'addinfo',
      'job_type',
      'job_args',
      'jobdate',
      'balance',
      'mrc010',
      'mrc402',
      'mrc800',
      'pending',
      'nonce',
    ]);
    expect(wallet).toMatchObject({ id: key, job_type: 'NewWallet', mrc010: null, mrc402: null, pending: null });
    expect(wallet.balance).toEqual([{ balance: '0', token: 0, unlockdate: 0, saleamount: '', auctionamount: '' }]);
    expect(JSON.parse(wallet.job_args)).toEqual([key, ...call.args]);
    expect(wallet.password).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(wallet.nonce).toMatch(/^[A-Za-z0-9]{40}$/);
  });

  it('stops proposing wallets once the population reaches the cap', () => {
    const { world, rng } = genesis();
    expect(newWalletJob.plan({ world, rng, now: NOW, walletCap: 5 })).toBeNull();
  });
});

describe('transfer', () => {
  it('writes `transfer` on from and `receive` on to with the call args, rotating only the sender nonce', () => {
    const { world, rng, wallets } = genesis();
    const [a, b] = wallets as [Wallet, Wallet];
    const call = transfer(a, b.id, '1000');
    const fx = run(world, rng, transferJob, call);
    expect(fx.writes.map((w) => w.key).sort()).toEqual([a.id, b.id].sort());
    expect(fx.wallet(a.id)).toMatchObject({
      job_type: 'transfer',
      job_args: JSON.stringify(call.args),
      jobdate: NOW + 10,
    });
    expect(fx.wallet(b.id)).toMatchObject({ job_type: 'receive', job_args: JSON.stringify(call.args), nonce: b.nonce });
    expect(fx.wallet(a.id).nonce).not.toBe(a.nonce);
    expect(BigInt(fx.wallet(a.id).balance[0]!.balance)).toBe(BigInt(a.balance[0]!.balance) - 1000n);
    expect(BigInt(fx.wallet(b.id).balance[0]!.balance)).toBe(BigInt(b.balance[0]!.balance) + 1000n);
    expect(fx.reads).toContain('TOKEN_DATA_0');
  });

  it('credits a future unlockdate as a separate locked entry', () => {
    const { world, rng, wallets } = genesis();
    const [a, b] = wallets as [Wallet, Wallet];
    const fx = run(world, rng, transferJob, transfer(a, b.id, '5', String(NOW + 3600)));
    expect(fx.wallet(b.id).balance.at(-1)).toEqual({
      balance: '5',
      token: 0,
      unlockdate: NOW + 3600,
      saleamount: '',
      auctionamount: '',
    });
  });

  it('rejects what the chaincode rejects: short balance, stale nonce, self transfer', () => {
    const { world, rng, wallets } = genesis();
    const [a, b] = wallets as [Wallet, Wallet];
    const tooMuch = (BigInt(a.balance[0]!.balance) + 1n).toString();
    expect(() => run(world, rng, transferJob, transfer(a, b.id, tooMuch))).toThrow(/^5001,/);
    expect(() => run(world, rng, transferJob, transfer({ ...a, nonce: 'x' }, b.id, '1'))).toThrow(/^1102,/);
    expect(() => run(world, rng, transferJob, transfer(a, a.id, '1'))).toThrow(ChaincodeError);
  });
});

describe('multitransfer', () => {
  it('writes `receive` per recipient with the payment layout and `multi_transfer` with the call args', () => {
    const { world, rng, wallets } = genesis();
    const [a, b, c] = wallets as [Wallet, Wallet, Wallet];
    const list = [
      { address: b.id, amount: '10', unlockdate: '0', tag: 't', memo: 'm' },
      { address: c.id, amount: '20', unlockdate: String(NOW + 60), tag: '', memo: '' },
    ];
    const call: Call = { fcn: 'multitransfer', args: [a.id, JSON.stringify(list), '0', 'c2ln', a.nonce] };
    const fx = run(world, rng, multiTransferJob, call);
    expect(JSON.parse(fx.wallet(a.id).job_args)).toEqual(call.args);
    expect(fx.wallet(a.id).job_type).toBe('multi_transfer');
    expect(JSON.parse(fx.wallet(c.id).job_args)).toEqual([
      a.id,
      c.id,
      '20',
      '0',
      'c2ln',
      String(NOW + 60),
      '',
      '',
      a.nonce,
    ]);
    expect(fx.wallet(c.id).balance.at(-1)).toMatchObject({ balance: '20', unlockdate: NOW + 60 });
  });

  it('rejects a recipient listed twice', () => {
    const { world, rng, wallets } = genesis();
    const [a, b] = wallets as [Wallet, Wallet];
    const list = [b, b].map((w) => ({ address: w.id, amount: '1', unlockdate: '0', tag: '', memo: '' }));
    const call: Call = { fcn: 'multitransfer', args: [a.id, JSON.stringify(list), '0', 's', a.nonce] };
    expect(() => run(world, rng, multiTransferJob, call)).toThrow(/^6100,/);
  });
});

describe('tokenRegister', () => {
  it('stores the record with job_args = the record itself and credits reserves as given', () => {
    const { world, rng, wallets } = genesis();
    const [owner, other] = wallets as [Wallet, Wallet];
    const past = NOW - 86_400;
    const call = tokenRegisterCall(
      rng,
      {
        owner: owner.id,
        symbol: 'TST',
        name: 'Test',
        totalsupply: '1000',
        decimal: 2,
        reserve: [
          { address: owner.id, value: '600', unlockdate: 0 },
          { address: other.id, value: '300', unlockdate: past },
        ],
        tier: [],
      },
      owner.nonce,
    );
    const fx = run(world, rng, tokenRegisterJob, call);
    const token = fx.value('TOKEN_DATA_1') as Mrc010Token;
    expect(token).toMatchObject({ id: '1', token: 1, type: '010', job_type: 'tokenRegister', createdate: NOW + 10 });
    expect(JSON.parse(token.job_args)).toEqual({ ...token, job_args: '' });
    expect(token.targettoken).toBeNull();
    expect(fx.value('TOKEN_MAX_NO')).toBe('1');
    // The past unlockdate is kept as is: reserves skip MRC010Add's normalisation.
    expect(fx.wallet(other.id).balance.at(-1)).toEqual({
      balance: '300',
      token: 1,
      unlockdate: past,
      saleamount: '',
      auctionamount: '',
    });
    expect(JSON.parse(fx.wallet(other.id).job_args)).toEqual([owner.id, other.id, '300', '1']);
    // NonceCheck ran on a copy of the owner that is never saved.
    expect(fx.wallet(owner.id).nonce).toBe(owner.nonce);
  });
});

describe('tokenIncrease and tokenBurning', () => {
  it('credits the owner and raises totalsupply on increase', () => {
    const { world, rng, wallets } = genesis();
    const owner = wallets[0]!;
    const fx = run(world, rng, tokenIncreaseJob, { fcn: 'tokenIncrease', args: ['0', '500', '', 's', owner.nonce] });
    expect(fx.wallet(owner.id).job_type).toBe('ownerIncrease');
    expect(BigInt(fx.wallet(owner.id).balance[0]!.balance)).toBe(BigInt(owner.balance[0]!.balance) + 500n);
    const token = fx.value('TOKEN_DATA_0') as Mrc010Token;
    expect(BigInt(token.totalsupply)).toBe(BigInt(world.token(0)!.totalsupply) + 500n);
    expect(token.job_type).toBe('tokenIncrease');
  });

  it('debits the owner and raises burnningamount, leaving totalsupply, on burning', () => {
    const { world, rng, wallets } = genesis();
    const owner = wallets[0]!;
    const fx = run(world, rng, tokenBurningJob, { fcn: 'tokenBurning', args: ['0', '700', 'm', 's', owner.nonce] });
    expect(fx.wallet(owner.id).job_type).toBe('ownerBurning');
    expect(BigInt(fx.wallet(owner.id).balance[0]!.balance)).toBe(BigInt(owner.balance[0]!.balance) - 700n);
    const token = fx.value('TOKEN_DATA_0') as Mrc010Token;
    expect(token.burnningamount).toBe('700');
    expect(token.totalsupply).toBe(world.token(0)!.totalsupply);
  });
});

describe('planners', () => {
  it('propose only calls the chaincode accepts', () => {
    const { world, rng } = genesis();
    const accepted = new Map<string, number>();
    // Jobs drawn by weight as blocks draw them (in a fixed rotation an unsell would cancel every
    // sell before a buy came), a minute apart so that DEX orders pile up and auctions end.
    for (let i = 0; i < 3_000; i++) {
      const job = pickJob(rng, DEFAULT_JOBS);
      const now = NOW + 10 + 60 * i;
      const call = job.plan({ world, rng, now, walletCap: 60 });
      if (!call) continue;
      const { writes } = run(world, rng, job, call, now);
      world.apply(writes);
      accepted.set(job.fcn, (accepted.get(job.fcn) ?? 0) + 1);
    }
    // Most draws find something to do; DEX jobs without a matching open order plan nothing.
    expect([...accepted.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(2_000);
    expect(DEFAULT_JOBS.filter((job) => !accepted.has(job.fcn)).map((job) => job.fcn)).toEqual([]);
  });
});
