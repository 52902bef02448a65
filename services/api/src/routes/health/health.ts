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
 * Readiness: the store answers, the node answers, and the index is at most READY_MAX_LAG blocks
 * behind the node. Otherwise 503 with the reason.
 */
export const readyzRoute = defineRoute({
  path: '/readyz',
  operationId: 'readyz',
  tag: 'probes',
  summary: 'Readiness probe',
  description:
    '503 when the read store or the node does not answer, or the index lags the node by more than READY_MAX_LAG blocks.',
  response: Readiness,
  errors: [503],
  cache: 'none',
  async handle({ head }, app) {
    const indexed = await head().catch((error: unknown) => {
      throw unavailable('the read store does not answer', error);
    });
    const mainnet = await app.mainnet.read();
    if (!mainnet.ok) throw unavailable('the chain node does not answer', mainnet.error);
    const lag = mainnet.height - indexed.height;
    if (lag > app.config.READY_MAX_LAG) {
      throw unavailable(
        `the index is ${lag} blocks behind the node (indexed ${indexed.height}, node ${mainnet.height}, at most ${app.config.READY_MAX_LAG} allowed)`,
      );
    }
    return { status: 'ok' as const, indexedHeight: indexed.height, mainnetHeight: mainnet.height };
  },
});
