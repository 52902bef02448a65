import { AdapterConfigSchema, describeAdapters, openCounters, openEventLog, openReadStore } from '@mtc/adapters';
import type { Counters, EventLog, ReadStore } from '@mtc/ports';
import type { ServiceContext } from '@mtc/runtime';
import { z } from 'zod';

/** The settings every projector process shares (the service, rebuild): adapters, logging, stats day. */
export const ProjectorBaseConfig = AdapterConfigSchema.extend({
  LOG_LEVEL: z.string().default('info'),
  STATS_UTC_OFFSET_MINUTES: z.coerce.number().int().min(-720).max(840).default(0),
});
export type ProjectorBaseConfig = z.infer<typeof ProjectorBaseConfig>;

/** Opens the log, store and counters, closing them (last) on shutdown. */
export async function openProjectorPorts(
  ctx: Pick<ServiceContext<ProjectorBaseConfig>, 'config' | 'logger' | 'shutdown'>,
): Promise<{ log: EventLog; store: ReadStore; counters: Counters }> {
  const { config, logger, shutdown } = ctx;
  const [log, store, counters] = await Promise.all([
    openEventLog(config, logger),
    openReadStore(config),
    openCounters(config),
  ]);
  shutdown.add('store', () => store.close());
  shutdown.add('counters', () => counters.close());
  shutdown.add('log', () => log.close());
  logger.info(describeAdapters(config), 'adapters');
  return { log, store, counters };
}
