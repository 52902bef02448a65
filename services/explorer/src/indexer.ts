import { resolve } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import { profileWindows, type Logger } from '@mtc/runtime';
import type { ExplorerConfig } from './config.ts';

/** What the follower's and the projector's threads are started with. */
export type IndexerData = ExplorerConfig & { nodeUrl: string; progressTty: boolean };

/** A start-up this far behind shows its progress (a bar on a terminal, log lines otherwise). */
export const BACKFILL_MIN_BLOCKS = 200;

/**
 * The heights the follower's thread has published, for the projector's thread (its backfill
 * progress): one channel per data directory, so explorers in one process keep apart.
 */
export function followerProgress(config: Pick<ExplorerConfig, 'DATA_DIR'>): BroadcastChannel {
  const channel = new BroadcastChannel(`mtc-follower-progress:${resolve(config.DATA_DIR)}`);
  channel.unref();
  return channel;
}

/** The thread's CPU profile windows at PROFILE_AT_HEIGHTS, as `<name>-at-<height>.cpuprofile`. */
export function profilesOf(config: ExplorerConfig, name: string, logger: Logger): ReturnType<typeof profileWindows> {
  return profileWindows({
    at: config.PROFILE_AT_HEIGHTS,
    seconds: config.PROFILE_SECONDS,
    dir: config.PROFILE_DIR,
    name,
    logger,
  });
}
