import { createServiceContext } from '@mtc/runtime';
import { createDevnet } from './chain/devnet.ts';
import { DevnetConfigSchema, devnetOptionsFrom } from './config.ts';
import { startDevnetServer } from './server/server.ts';

/** Standalone devnet node: `node services/devnet/src/main.ts` (see .env.example). */
const ctx = createServiceContext('devnet', DevnetConfigSchema);
const { config, logger } = ctx;

try {
  const started = performance.now();
  const devnet = createDevnet(devnetOptionsFrom(config, Date.now() / 1000));
  const { counts } = devnet.worldState();
  logger.info({ height: devnet.height(), ...counts, ms: Math.round(performance.now() - started) }, 'history generated');

  const server = await startDevnetServer(devnet, {
    host: config.DEVNET_HOST,
    port: config.DEVNET_PORT,
    liveIntervalMs: config.DEVNET_BLOCK_INTERVAL_MS,
    faultRate: config.DEVNET_FAULT_RATE,
  });
  ctx.shutdown.add('http server', () => server.close());
  logger.info(
    { url: server.url, seed: config.DEVNET_SEED, liveIntervalMs: config.DEVNET_BLOCK_INTERVAL_MS },
    'devnet node listening',
  );
} catch (error) {
  await ctx.fail(error);
}
