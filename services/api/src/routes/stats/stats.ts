import { z } from 'zod';
import { NotAtHead } from '../../consistent.ts';
import { intParam } from '../../params.ts';
import { defineRoute } from '../../route.ts';
import { TxStats } from './schemas.ts';

const DAY_MS = 86_400_000;
const DAY_S = 86_400;

export const TxStatsQuery = z.object({
  days: intParam(1, 90).default(30).describe('Days of history, today included.'),
});

/**
 * Calendar days in a fixed UTC offset. Shifting a time by the offset and reading it as UTC gives the
 * local wall clock; the same rule as the projector's daily_tx keys.
 */
export function statsDays(
  nowMs: number,
  utcOffsetMinutes: number,
  days: number,
): { dates: string[]; todayStart: number } {
  const offsetMs = utcOffsetMinutes * 60_000;
  const localMidnight = Math.floor((nowMs + offsetMs) / DAY_MS) * DAY_MS;
  const dates = Array.from({ length: days }, (_, i) =>
    new Date(localMidnight - (days - 1 - i) * DAY_MS).toISOString().slice(0, 10),
  );
  return { dates, todayStart: (localMidnight - offsetMs) / 1000 };
}

export const txStatsRoute = defineRoute({
  path: '/api/tx-stats',
  operationId: 'getTxStats',
  tag: 'stats',
  summary: 'Transactions per day, and today so far against yesterday at the same time',
  query: TxStatsQuery,
  response: TxStats,
  errors: [400],
  cache: 'head',
  async handle({ query, head }, app) {
    const nowMs = app.now();
    const now = Math.floor(nowMs / 1000);
    const { dates, todayStart } = statsDays(nowMs, app.config.STATS_UTC_OFFSET_MINUTES, query.days);
    const before = await app.counters.highestCounted();
    const [docs, todaySoFar, yesterdaySameTime] = await Promise.all([
      app.models.dailyTx.getMany(dates),
      // Buckets are whole minutes: count through the current one, or the newest blocks would be
      // missing from todaySoFar (and yesterday's figure is cut at the same minute).
      app.counters.txCountBetween(todayStart, now + 60),
      app.counters.txCountBetween(todayStart - DAY_S, now - DAY_S + 60),
    ]);
    // The counters live apart from the read models and only grow (the projector counts a batch
    // before it writes the batch's head): found at exactly the head H before and after the sums
    // were read, the sums were of H. Ahead (the next batch is on its way) or behind (they lost
    // their data and are being refilled), the answer is built again.
    const [after, { height }] = await Promise.all([app.counters.highestCounted(), head()]);
    if (before !== height || after !== height)
      throw new NotAtHead(`the today-so-far counters are at ${before}…${after}, the read models at ${height}`);
    const counts = new Map(docs.map((d) => [d._id, d.count]));
    return {
      history: dates.map((date) => ({ date, count: counts.get(date) ?? 0 })),
      todaySoFar,
      yesterdaySameTime,
    };
  },
});
