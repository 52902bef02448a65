import { randomBytes } from 'node:crypto';
import { createMongoReadStore } from '@mtc/adapters';
import { describeWithInfra } from '@mtc/adapters/contract';
import { startDevnetServer } from '@mtc/devnet';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { getJson, waitFor } from '../support/explorer-process.ts';
import { crawlWhileIndexing, type CrawlReport } from '../support/height-crawl.ts';
import { recentDevnet } from '../support/recent-devnet.ts';
import { spawnService, waitForOutput, type ServiceProcess } from '../support/service-process.ts';

/**
 * One height per answer, distributed: the follower, two projectors in one group and two API
 * processes on Kafka, the MongoDB stand-in `npm run infra:up` makes the default, and Redis, with
 * the production time budgets. Both APIs are crawled from the first indexed block through the
 * catch-up and on into live blocks; every answer must be true as of the height it names (the
 * rules of height-crawl.ts), none may be a 5xx, and the later-height rule is checked per API.
 */
describeWithInfra(
  'one height per answer while the index moves (distributed: Kafka, MongoDB, Redis)',
  ['KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL'],
  (infra) => {
    const run = randomBytes(4).toString('hex');
    const env = {
      ...infra,
      TOPIC_PREFIX: `oh-${run}.`,
      OPS_PORT: '0',
      MONGO_DATABASE: `oh_${run}`,
      REDIS_PREFIX: `oh:${run}:`,
      PROJECTOR_GROUP: `oh-${run}`,
      LOG_LEVEL: 'warn',
    };
    const HISTORY = 1_200;
    const devnet = recentDevnet(777, HISTORY, 30);
    let node: { url: string; close(): Promise<void> };
    const processes: ServiceProcess[] = [];
    const apis: string[] = [];

    const start = (main: string, extra: Record<string, string> = {}): ServiceProcess => {
      const p = spawnService(main, { ...env, CHAIN_NODE_URL: node.url, ...extra });
      processes.push(p);
      return p;
    };

    beforeAll(async () => {
      node = await startDevnetServer(devnet, { port: 0, liveIntervalMs: 1_000 });
      const migrate = start('services/projector/src/migrate.ts');
      expect(await migrate.exited).toBe(0);
      for (let i = 0; i < 2; i++) {
        const api = start('services/api/src/main.ts', { PORT: '0' });
        apis.push((await waitForOutput(api, /Explorer API: (http:\/\/\S+)\/api\/chain/))[1]!);
      }
    }, 120_000);

    afterAll(async () => {
      await Promise.all(processes.map((p) => p.kill('SIGTERM')));
      const store = await createMongoReadStore({ url: infra.MONGO_URL, database: env.MONGO_DATABASE });
      await store.drop();
      await store.close();
      await node?.close();
    }, 60_000);

    it('answers every request of both APIs as of the one height it names, during the catch-up and after it', async () => {
      start('services/follower/src/main.ts');
      start('services/projector/src/main.ts');
      start('services/projector/src/main.ts');
      const localBlock = async (api: string) =>
        (await getJson<{ localBlock: number }>(`${api}/api/chain`)).body.localBlock;
      await waitFor(
        'the first indexed block',
        async () => ((await localBlock(apis[0]!)) > 0 ? true : undefined),
        120_000,
      );
      const catchingUp = (await localBlock(apis[0]!)) < HISTORY;
      let caughtUpAt: number | null = null;
      const until = async (): Promise<boolean> => {
        if (caughtUpAt === null && (await localBlock(apis[0]!)) >= HISTORY) caughtUpAt = Date.now();
        return caughtUpAt !== null && Date.now() - caughtUpAt > 20_000;
      };
      const reports: CrawlReport[] = await Promise.all(
        apis.map((apiUrl) => crawlWhileIndexing({ apiUrl, until, maxMs: 480_000, workers: 2 })),
      );
      for (const [i, r] of reports.entries())
        console.info(
          `one height (distributed, API ${i + 1}): ${r.requests} requests over ${r.heights} heights; ` +
            `${r.within} within-answer checks, ${r.sameHeight} same-height pairs, ${r.later} later-height lookups; ` +
            `${r.contradictions.length} contradictions`,
        );
      expect(catchingUp, 'the crawl began during the catch-up').toBe(true);
      expect(caughtUpAt, 'the index caught up within the crawl').not.toBeNull();
      expect(reports.flatMap((r) => r.contradictions)).toEqual([]);
      for (const r of reports) {
        expect(r.sameHeight).toBeGreaterThanOrEqual(100);
        expect(r.later).toBeGreaterThanOrEqual(100);
      }
    }, 600_000);
  },
);
