import { describe, expect, it } from 'vitest';
import { ErrorBody } from '../../errors.ts';
import { ALICE, BOB, buildChain, fakeCounters, startTestApi, testConfig, type Chain } from '../../testing/harness.ts';
import { TxStats } from './schemas.ts';
import { statsDays } from './stats.ts';

/** 2024-03-10 15:30:20 UTC. */
const NOW = Date.UTC(2024, 2, 10, 15, 30, 20);
const NOW_S = NOW / 1000;
const TODAY_UTC = Date.UTC(2024, 2, 10) / 1000;

/** A chain with one block per [unix seconds, transfers], in that order. */
function blocksAt(blocks: readonly (readonly [number, number])[]): Chain {
  const chain = buildChain(0);
  for (const [timestamp, count] of blocks) {
    const txs = Array.from({ length: count }, () => chain.transfer({ from: ALICE, to: BOB, amount: '1', token: 0 }));
    chain.block(txs, { timestamp });
  }
  return chain;
}

describe('statsDays', () => {
  it('ends with today in UTC when the offset is 0', () => {
    expect(statsDays(NOW, 0, 3)).toEqual({ dates: ['2024-03-08', '2024-03-09', '2024-03-10'], todayStart: TODAY_UTC });
  });

  it('ends with the local today when the offset moves past midnight', () => {
    // 15:30 UTC is 00:30 on the 11th at UTC+9.
    expect(statsDays(NOW, 540, 2)).toEqual({
      dates: ['2024-03-10', '2024-03-11'],
      todayStart: Date.UTC(2024, 2, 10, 15, 0, 0) / 1000,
    });
    // And 07:30 on the 10th at UTC−8.
    expect(statsDays(NOW, -480, 1)).toEqual({ dates: ['2024-03-10'], todayStart: Date.UTC(2024, 2, 10, 8) / 1000 });
  });
});

describe('GET /api/tx-stats', () => {
  /** 99 transactions on 2024-02-09 (outside 30 days), 3 on 03-08, 7 (in two blocks) on 03-10. */
  const daily = blocksAt([
    [Date.UTC(2024, 1, 9, 12) / 1000, 99],
    [Date.UTC(2024, 2, 8, 23, 59) / 1000, 3],
    [Date.UTC(2024, 2, 10, 0, 0) / 1000, 4],
    [Date.UTC(2024, 2, 10, 15, 0) / 1000, 3],
  ]);

  it('gives 30 days oldest first ending today, counting 0 for missing days, with the spec types', async () => {
    const counters = fakeCounters((from) => (from === TODAY_UTC ? 5 : 4));
    const api = await startTestApi({ now: () => NOW, counters, fixture: daily });
    try {
      const { status, body } = await api.get<TxStats>('/api/tx-stats');
      expect(status).toBe(200);
      expect(TxStats.parse(body)).toEqual(body);
      expect(body.history).toHaveLength(30);
      expect(body.history[0]).toEqual({ date: '2024-02-10', count: 0 });
      expect(body.history.at(-1)).toEqual({ date: '2024-03-10', count: 7 });
      expect(body.history.at(-3)).toEqual({ date: '2024-03-08', count: 3 });
      expect(body.history.reduce((sum, d) => sum + d.count, 0)).toBe(10);
      expect(body.todaySoFar).toBe(5);
      expect(body.yesterdaySameTime).toBe(4);
    } finally {
      await api.close();
    }
  });

  it('answers only once the counters are at the indexed head: behind, then at it', async () => {
    // The counters have counted one block less than the read models hold for their first two
    // readings (a batch counted late), then reach the head; their sums follow what they counted.
    const counters = fakeCounters();
    let readings = 0;
    const head = 4; // `daily` has four blocks
    const sums = { behind: 2, at: 5 };
    // Sums read after the third reading are at the head.
    const behind = () => readings <= 2;
    const api = await startTestApi({
      now: () => NOW,
      fixture: daily,
      counters: {
        ...counters,
        highestCounted: async () => (++readings <= 2 ? head - 1 : head),
        txCountBetween: async () => (behind() ? sums.behind : sums.at),
      },
    });
    try {
      const { status, body } = await api.get<TxStats>('/api/tx-stats?days=1');
      expect(status).toBe(200);
      expect(body.todaySoFar).toBe(sums.at);
      expect(readings).toBeGreaterThanOrEqual(3);
    } finally {
      await api.close();
    }
  });

  it('answers 503 within its budget when the counters stay behind the indexed head (they lost their data)', async () => {
    const api = await startTestApi({
      now: () => NOW,
      fixture: daily,
      counters: { ...fakeCounters(), highestCounted: async () => 0 },
      config: testConfig({ API_REQUEST_TIMEOUT_MS: '300' }),
    });
    try {
      const { status, body } = await api.get('/api/tx-stats?days=1');
      expect(status).toBe(503);
      expect(ErrorBody.parse(body).error.code).toBe('unavailable');
    } finally {
      await api.close();
    }
  });

  it('asks the counters for today so far and for yesterday up to the same time', async () => {
    const counters = fakeCounters();
    const api = await startTestApi({ now: () => NOW, counters });
    try {
      await api.get('/api/tx-stats?days=1');
      expect(counters.calls).toEqual([
        // Through the end of the current minute: its blocks count too.
        [TODAY_UTC, NOW_S + 60],
        [TODAY_UTC - 86_400, NOW_S - 86_400 + 60],
      ]);
    } finally {
      await api.close();
    }
  });

  it('reads the clock CLOCK_NOW_UNIX pins', async () => {
    const counters = fakeCounters();
    const api = await startTestApi({ counters, config: testConfig({ CLOCK_NOW_UNIX: String(NOW_S) }) });
    try {
      const { body } = await api.get<TxStats>('/api/tx-stats?days=1');
      expect(body.history).toEqual([{ date: '2024-03-10', count: 0 }]);
      expect(counters.calls[0]).toEqual([TODAY_UTC, NOW_S + 60]);
    } finally {
      await api.close();
    }
  });

  it('uses the configured UTC offset for the days', async () => {
    const counters = fakeCounters();
    const api = await startTestApi({
      now: () => NOW,
      counters,
      config: testConfig({ STATS_UTC_OFFSET_MINUTES: '540' }),
      // 15:10 UTC on the 10th is 00:10 on the 11th at UTC+9; 14:50 UTC is still the 10th there.
      fixture: blocksAt([
        [Date.UTC(2024, 2, 10, 14, 50) / 1000, 1],
        [Date.UTC(2024, 2, 10, 15, 10) / 1000, 2],
      ]),
    });
    try {
      const { body } = await api.get<TxStats>('/api/tx-stats?days=2');
      expect(body.history).toEqual([
        { date: '2024-03-10', count: 1 },
        { date: '2024-03-11', count: 2 },
      ]);
      expect(counters.calls[0]).toEqual([Date.UTC(2024, 2, 10, 15) / 1000, NOW_S + 60]);
    } finally {
      await api.close();
    }
  });

  it('accepts days from 1 to 90 and answers 400 otherwise', async () => {
    const api = await startTestApi({ now: () => NOW });
    try {
      expect((await api.get<TxStats>('/api/tx-stats?days=1')).body.history).toHaveLength(1);
      expect((await api.get<TxStats>('/api/tx-stats?days=90')).body.history).toHaveLength(90);
      for (const days of ['0', '91', 'abc', '7.5', '-3']) {
        const res = await api.get(`/api/tx-stats?days=${days}`);
        expect(res.status, days).toBe(400);
        expect(ErrorBody.parse(res.body).error.code).toBe('bad_request');
      }
    } finally {
      await api.close();
    }
  });
});
