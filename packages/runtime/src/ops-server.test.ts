import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { answerWithin, ProbeTimeoutError, runProbes, startOpsServer, type OpsServer } from './ops-server.ts';

const never = (): Promise<never> => new Promise<never>(() => {});

describe('answerWithin', () => {
  it('settles as the check does when it is in time', async () => {
    expect(await answerWithin('the store', 1_000, async () => 7)).toBe(7);
    await expect(answerWithin('the store', 1_000, () => Promise.reject(new Error('down')))).rejects.toThrow('down');
  });

  it('rejects naming the dependency once the time passed', async () => {
    const error: unknown = await answerWithin('the read store', 50, never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProbeTimeoutError);
    expect((error as Error).message).toBe('the read store did not answer within 50 ms');
  });
});

describe('runProbes', () => {
  it('gives the answers, and a reason for each probe that failed or did not answer, in order', async () => {
    const { values, failures } = await runProbes(50, {
      'the event log': async () => 3,
      'the read store': never,
      'the counters store': () => Promise.reject(new Error('NOAUTH')),
    });
    expect(values).toEqual({ 'the event log': 3 });
    expect(failures).toEqual([
      'the read store did not answer within 50 ms',
      'the counters store does not answer (NOAUTH)',
    ]);
  });
});

describe('startOpsServer /readyz', () => {
  let ops: OpsServer | undefined;
  afterEach(async () => {
    await ops?.close();
    ops = undefined;
  });

  const readyz = async (): Promise<{ status: number; ms: number; body: Record<string, unknown> }> => {
    const started = Date.now();
    const res = await fetch(`${ops!.url}/readyz`, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, ms: Date.now() - started, body: (await res.json()) as Record<string, unknown> };
  };

  it('answers 200 with the detail when ready, and 503 with the reason when not', async () => {
    let ready = true;
    ops = await startOpsServer({
      port: 0,
      registry: new Registry(),
      readiness: async () => ({
        ready,
        reason: ready ? undefined : 'the group lags by 9 messages',
        detail: { lag: 9 },
      }),
    });
    expect(await readyz()).toMatchObject({ status: 200, body: { status: 'ready', lag: 9 } });
    ready = false;
    expect(await readyz()).toMatchObject({
      status: 503,
      body: { error: { code: 'unavailable', message: 'the group lags by 9 messages' }, lag: 9 },
    });
  });

  it('answers 503 within its budget when the check hangs, and gives the check a part of it for its probes', async () => {
    let given = 0;
    ops = await startOpsServer({
      port: 0,
      registry: new Registry(),
      readinessBudgetMs: 300,
      readiness: ({ withinMs }) => {
        given = withinMs;
        return never();
      },
    });
    const { status, ms, body } = await readyz();
    expect(status).toBe(503);
    expect(body).toEqual({
      error: { code: 'unavailable', message: 'the readiness check did not answer within 300 ms' },
    });
    // Generous: the point is an answer, not a hung socket; the 300 ms are what it waited.
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(1_000);
    expect(given).toBe(210);
  });

  it('names the dependency when the check bounds its own probes', async () => {
    ops = await startOpsServer({
      port: 0,
      registry: new Registry(),
      readiness: async ({ withinMs }) => {
        const { failures } = await runProbes(withinMs, { 'the read store': never, 'the event log': async () => 0 });
        return { ready: failures.length === 0, reason: failures.join('; '), detail: {} };
      },
    });
    const { status, ms, body } = await readyz();
    expect(status).toBe(503);
    expect(body).toEqual({ error: { code: 'unavailable', message: 'the read store did not answer within 700 ms' } });
    expect(ms).toBeLessThan(1_000);
  });
});
