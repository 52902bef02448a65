import { probeBudget, READINESS_BUDGET_MS, runProbes } from '@mtc/runtime';
import { unavailable } from '../../errors.ts';
import { defineRoute } from '../../route.ts';
import { Health, Readiness } from './schemas.ts';

/** Liveness: the process answers. It depends on nothing, so a down store or node never restarts it. */
export const healthzRoute = defineRoute({
  path: '/healthz',
  operationId: 'healthz',
  tag: 'probes',
  summary: 'Liveness probe',
  response: Health,
  errors: [],
  cache: 'none',
  async handle() {
    return { status: 'ok' as const };
  },
});

/**
 * Readiness: the store and the counters answer, the node answers, and the index is at most
 * READY_MAX_LAG blocks behind the node. Otherwise 503 with the reason. It answers within
 * READINESS_BUDGET_MS whatever the dependencies do: each is probed side by side within a part of it,
 * and one that does not answer in time is named (`the read store did not answer within 700 ms`).
 */
export const readyzRoute = defineRoute({
  path: '/readyz',
  operationId: 'readyz',
  tag: 'probes',
  summary: 'Readiness probe',
  description:
    '503 when the read store or the node does not answer, the index lags the node by more than READY_MAX_LAG blocks, or the process is stopping (draining the requests in flight).',
  response: Readiness,
  errors: [503],
  cache: 'none',
  async handle({ head }, app) {
    if (app.stopping.aborted)
      throw unavailable('the API is stopping: it finishes the requests in flight and takes no new ones');
    const { values, failures } = await runProbes(probeBudget(READINESS_BUDGET_MS), {
      'the read store': head,
      'the counters store': () => app.counters.highestCounted(),
      'the chain node': async () => {
        const reading = await app.mainnet.read();
        if (!reading.ok) throw reading.error;
        return reading.height;
      },
    });
    const indexed = values['the read store'];
    const mainnet = values['the chain node'];
    if (failures.length > 0 || indexed === undefined || mainnet === undefined) throw unavailable(failures.join('; '));
    const lag = mainnet - indexed.height;
    if (lag > app.config.READY_MAX_LAG) {
      throw unavailable(
        `the index is ${lag} blocks behind the node (indexed ${indexed.height}, node ${mainnet}, at most ${app.config.READY_MAX_LAG} allowed)`,
      );
    }
    return { status: 'ok' as const, indexedHeight: indexed.height, mainnetHeight: mainnet };
  },
});
