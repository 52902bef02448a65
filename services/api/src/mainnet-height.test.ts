import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMainnetHeight } from './mainnet-height.ts';
import { fakeChain } from './testing/harness.ts';

describe('createMainnetHeight', () => {
  const setup = () => {
    let now = 0;
    const chain = fakeChain(null, 100);
    const mainnet = createMainnetHeight({ chain, ttlMs: 1000, now: () => now, logger: pino({ level: 'silent' }) });
    return { chain, mainnet, advance: (ms: number) => (now += ms) };
  };

  it('asks the node once per ttl when called repeatedly', async () => {
    const { chain, mainnet, advance } = setup();
    expect(await mainnet.read()).toEqual({ ok: true, height: 100 });
    chain.nodeHeight = 101;
    advance(999);
    expect(await mainnet.read()).toEqual({ ok: true, height: 100 });
    advance(1);
    expect(await mainnet.read()).toEqual({ ok: true, height: 101 });
    expect(chain.calls.height).toBe(2);
  });

  it('shares one node call between concurrent readers', async () => {
    const { chain, mainnet } = setup();
    await Promise.all([mainnet.read(), mainnet.read(), mainnet.read()]);
    expect(chain.calls.height).toBe(1);
  });

  it('keeps the last known height when the node goes down', async () => {
    const { chain, mainnet, advance } = setup();
    await mainnet.read();
    chain.down = true;
    advance(1000);
    expect(await mainnet.read()).toMatchObject({ ok: false, lastKnown: 100 });
    // The failure is remembered for the ttl too, so a down node is not hammered.
    await mainnet.read();
    expect(chain.calls.height).toBe(2);
  });

  it('has no last known height when the node never answered', async () => {
    const { chain, mainnet } = setup();
    chain.down = true;
    expect(await mainnet.read()).toMatchObject({ ok: false, lastKnown: null });
  });

  it('takes a height below the last known one (the node’s transient 0) for a failed reading', async () => {
    const { chain, mainnet, advance } = setup();
    await mainnet.read();
    chain.nodeHeight = 0;
    advance(1000);
    expect(await mainnet.read()).toMatchObject({ ok: false, lastKnown: 100 });
    chain.nodeHeight = 102;
    advance(1000);
    expect(await mainnet.read()).toEqual({ ok: true, height: 102 });
  });
});
