import { describe, expect, it } from 'vitest';
import { createRng } from '../../../rng.ts';
import type { LegacyWallet } from '../codec.ts';
import type { ChaincodeVersion } from '../../../chaincode/versions.ts';
import { createStub } from '../../../world/stub.ts';
import { createWorld, type World } from '../../../world/world.ts';
import type { Call, Job } from '../../../jobs/job.ts';
import { newWalletJob } from '../newwallet.ts';
import { tokenIncreaseJob } from '../token-supply.ts';
import { transferJob } from '../transfer.ts';
import { exchangeJob } from './exchange.ts';
import { mrc100LogJob } from './mrc100-log.ts';
import { tokenAddLoggerJob } from './token-admin.ts';
import { tokenRemoveTargetJob } from './token-admin.ts';

const NOW = 1_600_000_000;
// CRC-valid addresses (metacoin-chain.md §5; real-samples).
const A = 'MTA6SGKE8RU0TTCBPoDRfULnXL5lr4SLece1a6ee';
const B = 'MTLhcZ9BZnnm4CgUCOx40xThbPSnBonG3d699275';
const C = 'MTcLse7l6W3X8MEXoKrmeaM5hPTuTGXG8cf9fdba';
const D = 'MT4FzIQCgRh0T1YD841OxjNd3dkfTJcEd41d17d3';

type Entry = [token: number, balance: string, unlockdate?: number];

/** A CC-22 (2.2) wallet record: no id, three-field entries. */
function legacyWallet(balance: Entry[], nonce = `nonce-${balance.length}`): LegacyWallet {
  return {
    regdate: NOW - 100,
    password: 'PEM',
    addinfo: '',
    job_type: 'NewWallet',
    job_args: '[]',
    jobdate: NOW - 100,
    balance: balance.map(([token, b, unlockdate = 0]) => ({ balance: b, token, unlockdate })),
    mrc402: null,
    mrc800: null,
    pending: null,
    nonce,
  };
}

function legacyToken(id: number, owner: string, extra: object = {}) {
  return {
    owner,
    symbol: `T${id}`,
    createdate: NOW - 50,
    totalsupply: '1000',
    reservedamount: '1000',
    remainamount: '0',
    burnningamount: '0',
    softcap: '0',
    hardcap: '0',
    token: id,
    name: `Token ${id}`,
    information: '',
    url: '',
    image: '',
    decimal: 0,
    reserve: null,
    tier: null,
    status: '',
    targettoken: null,
    basetoken: 0,
    type: '010',
    logger: null,
    job_type: 'tokenRegister',
    job_args: '{}',
    jobdate: NOW - 50,
    ...extra,
  };
}

function setup(wallets: Record<string, Entry[]>, tokens: Record<number, object> = {}): World {
  const world = createWorld();
  world.apply([
    { key: 'TOKEN_DATA_0', value: legacyToken(0, A) },
    { key: 'TOKEN_DATA_5', value: legacyToken(5, A) },
    ...Object.entries(tokens).map(([id, value]) => ({ key: `TOKEN_DATA_${id}`, value })),
    ...Object.entries(wallets).map(([key, balance]) => ({ key, value: legacyWallet(balance) })),
  ]);
  return world;
}

function run(world: World, job: Job, call: Call, version: ChaincodeVersion = 'v2.2') {
  const { stub, effects } = createStub(world, NOW, createRng(3), version);
  job.execute(stub, call);
  const { writes } = effects();
  const byKey = new Map(writes.map((w) => [w.key, w.value as Record<string, unknown>]));
  return { writes, value: (key: string) => byKey.get(key)! };
}

const nonceOf = (world: World, address: string) => world.wallet(address)!.nonce;
const transfer = (world: World, from: string, to: string, amount: string, token = '5'): Call => ({
  fcn: 'transfer',
  args: [from, to, amount, token, 'sig', '0', '', '', nonceOf(world, from)],
});

describe('legacy transfer (CC-22 MoveToken)', () => {
  it('writes MetaWallet records: no id, three-field entries', () => {
    const world = setup({
      [A]: [
        [0, '100'],
        [5, '30'],
      ],
      [B]: [[0, '0']],
    });
    const fx = run(world, transferJob, transfer(world, A, B, '10'));
    for (const key of [A, B]) {
      expect(fx.value(key)).not.toHaveProperty('id');
      for (const e of fx.value(key).balance as object[])
        expect(Object.keys(e)).toEqual(['balance', 'token', 'unlockdate']);
    }
    expect(fx.value(B).balance).toEqual([
      { balance: '0', token: 0, unlockdate: 0 },
      { balance: '10', token: 5, unlockdate: 0 },
    ]);
  });

  it('keeps an entry spent to exactly "0" when no earlier entry was drained', () => {
    const world = setup({
      [A]: [
        [0, '100'],
        [5, '30'],
      ],
      [B]: [[0, '0']],
    });
    const fx = run(world, transferJob, transfer(world, A, B, '30'));
    expect(fx.value(A).balance).toEqual([
      { balance: '100', token: 0, unlockdate: 0 },
      { balance: '0', token: 5, unlockdate: 0 },
    ]);
  });

  it('removes every zero entry of tokens other than 0 once an entry is drained on the way', () => {
    const world = setup({
      [A]: [
        [0, '100'],
        [5, '10', NOW - 5],
        [5, '30'],
      ],
      [B]: [[0, '0']],
    });
    const fx = run(world, transferJob, transfer(world, A, B, '20'));
    expect(fx.value(A).balance).toEqual([
      { balance: '100', token: 0, unlockdate: 0 },
      { balance: '20', token: 5, unlockdate: 0 },
    ]);
  });
});

describe('legacy tokenIncrease', () => {
  it('takes four args (no memo) as the job_args of ownerIncrease and tokenIncrease, and writes no token id', () => {
    const world = setup({
      [A]: [
        [0, '100'],
        [5, '30'],
      ],
    });
    const call: Call = { fcn: 'tokenIncrease', args: ['5', '70', 'sig', nonceOf(world, A)] };
    const fx = run(world, tokenIncreaseJob, call);
    expect(fx.value(A)).toMatchObject({ job_type: 'ownerIncrease', job_args: JSON.stringify(call.args) });
    expect(fx.value('TOKEN_DATA_5')).toMatchObject({ job_type: 'tokenIncrease', totalsupply: '1070' });
    expect(fx.value('TOKEN_DATA_5')).not.toHaveProperty('id');
    expect(fx.value(A).balance).toContainEqual({ balance: '100', token: 5, unlockdate: 0 });
  });
});

describe('legacy exchange', () => {
  const call = (world: World, fromFee: string, toFee: string, fee = '2'): Call => ({
    fcn: 'exchange',
    args: [
      A,
      '10',
      '0',
      fromFee,
      fee,
      '0',
      '',
      '',
      'sigA',
      B,
      '20',
      '5',
      toFee,
      fee,
      '5',
      '',
      '',
      'sigB',
      nonceOf(world, A),
      nonceOf(world, B),
    ],
  });
  const wallets = () => ({
    [A]: [[0, '100']] as Entry[],
    [B]: [
      [0, '0'],
      [5, '100'],
    ] as Entry[],
    [C]: [[0, '0']] as Entry[],
    [D]: [[0, '0']] as Entry[],
  });
  const types = (fx: ReturnType<typeof run>) =>
    Object.fromEntries(fx.writes.map((w) => [w.key, (w.value as { job_type: string }).job_type]));

  it('writes exchange, exchangePair, exchangeFee and exchangeFeePair on four distinct wallets', () => {
    const world = setup(wallets());
    const fx = run(world, exchangeJob, call(world, C, D));
    expect(types(fx)).toEqual({ [A]: 'exchange', [B]: 'exchangePair', [C]: 'exchangeFee', [D]: 'exchangeFeePair' });
    expect(fx.value(A).balance).toEqual([
      { balance: '88', token: 0, unlockdate: 0 },
      { balance: '20', token: 5, unlockdate: 0 },
    ]);
    expect(fx.value(D).balance).toContainEqual({ balance: '2', token: 5, unlockdate: 0 });
  });

  it('leaves the later role on a wallet that plays two (the same key is written twice)', () => {
    const world = setup(wallets());
    const feeToCounterparty = run(world, exchangeJob, call(world, B, ''));
    expect(types(feeToCounterparty)).toEqual({ [A]: 'exchange', [B]: 'exchangeFee' });
    // One wallet struct behind both roles: to's single write holds the swap and the fee.
    expect(feeToCounterparty.value(B).balance).toEqual([
      { balance: '12', token: 0, unlockdate: 0 },
      { balance: '80', token: 5, unlockdate: 0 },
    ]);
    expect(types(run(world, exchangeJob, call(world, '', A)))).toEqual({ [A]: 'exchangeFeePair', [B]: 'exchangePair' });
    expect(types(run(world, exchangeJob, call(world, C, C)))).toEqual({
      [A]: 'exchange',
      [B]: 'exchangePair',
      [C]: 'exchangeFeePair',
    });
  });

  it('writes a fee receiver whose fee is not positive without moving anything, and ignores a fee to oneself', () => {
    const world = setup(wallets());
    const zero = run(world, exchangeJob, call(world, C, '', '0'));
    expect(types(zero)).toEqual({ [A]: 'exchange', [B]: 'exchangePair', [C]: 'exchangeFee' });
    expect(zero.value(C).balance).toEqual([{ balance: '0', token: 0, unlockdate: 0 }]);
    expect(types(run(world, exchangeJob, call(world, A, B)))).toEqual({ [A]: 'exchange', [B]: 'exchangePair' });
  });
});

describe('legacy tokenRemoveTarget', () => {
  it("removes the token's own id whatever target is asked for, and only from a token that targets itself", () => {
    const targets = { '0': NOW - 9, '5': NOW - 8 };
    const world = setup({ [A]: [[0, '1']] }, { 5: legacyToken(5, A, { targettoken: targets }) });
    const fx = run(world, tokenRemoveTargetJob, { fcn: 'tokenRemoveTarget', args: ['5', '0', 's', nonceOf(world, A)] });
    expect(fx.value('TOKEN_DATA_5').targettoken).toEqual({ '0': NOW - 9 });
    const other = setup({ [A]: [[0, '1']] }, { 5: legacyToken(5, A, { targettoken: { '0': NOW } }) });
    expect(() =>
      run(other, tokenRemoveTargetJob, { fcn: 'tokenRemoveTarget', args: ['5', '0', 's', nonceOf(other, A)] }),
    ).toThrow(/^4202,/);
  });
});

describe('tokenAddLogger and mrc100Log', () => {
  it('keeps logger keys sorted as Go writes a map', () => {
    const world = setup(
      { [A]: [[0, '1']], [B]: [[0, '1']], [C]: [[0, '1']] },
      { 5: legacyToken(5, A, { logger: { [C]: 1 } }) },
    );
    const fx = run(world, tokenAddLoggerJob, { fcn: 'tokenAddLogger', args: ['5', B, 's', nonceOf(world, A)] });
    expect(Object.keys(fx.value('TOKEN_DATA_5').logger as object)).toEqual([B, C].sort());
  });

  it('writes only the MRC100LOG record (regdate, token, logger, job_type, job_args = the log) for a logger of a game token', () => {
    const world = setup(
      { [A]: [[0, '1']], [B]: [[0, '1']] },
      { 7: legacyToken(7, A, { type: '100', logger: { [B]: 1 } }) },
    );
    const key = 'MRC100_7_1600000000_00000000000000000000000000000000';
    const fx = run(world, mrc100LogJob, { fcn: 'mrc100Log', args: [key, '7', B, 'won', 's', nonceOf(world, B)] });
    expect(fx.writes.map((w) => w.key)).toEqual([key]);
    expect(fx.value(key)).toEqual({ regdate: NOW, token: 7, logger: B, job_type: 'MRC100LOG', job_args: 'won' });
    expect(() => run(world, mrc100LogJob, { fcn: 'mrc100Log', args: [key, '7', C, 'x', 's', 'n'] })).toThrow(/^6030,/);
    expect(() =>
      run(world, mrc100LogJob, { fcn: 'mrc100Log', args: [key, '5', A, 'x', 's', nonceOf(world, A)] }),
    ).toThrow(/^6032,/);
  });
});

describe('newwallet under legacy versions', () => {
  it('writes no nonce under 2.0 and nonce plus mrc402 under 2.2', () => {
    const world = setup({});
    const call: Call = {
      fcn: 'newwallet',
      args: ['-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n', ''],
    };
    const v20 = run(world, newWalletJob, call, 'v2.0').writes[0]!.value;
    expect(Object.keys(v20)).toEqual([
      'regdate',
      'password',
      'addinfo',
      'job_type',
      'job_args',
      'jobdate',
      'balance',
      'pending',
    ]);
    const v22 = run(world, newWalletJob, call, 'v2.2').writes[0]!.value as LegacyWallet;
    expect(v22).toMatchObject({ mrc402: null, mrc800: null });
    expect(v22.nonce).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(v22.balance).toEqual([{ balance: '0', token: 0, unlockdate: 0 }]);
  });
});
