import type { ChainSource } from '@mtc/ports';
import type { Logger } from 'pino';

/**
 * The node's height, asked at most once per `ttlMs` however many requests want it (concurrent
 * askers share one call). A failed call is remembered for the same time, so a down node is not
 * hammered, and the last height the node did give is kept as a fallback for callers that can use one.
 * A height below the last known one (the node's transient `0`) counts as a failed call.
 */
export type HeightReading = { ok: true; height: number } | { ok: false; lastKnown: number | null; error: unknown };

export interface MainnetHeight {
  read(): Promise<HeightReading>;
}

export function createMainnetHeight(deps: {
  chain: ChainSource;
  ttlMs: number;
  now: () => number;
  logger: Logger;
}): MainnetHeight {
  let cached: { reading: HeightReading; at: number } | null = null;
  let lastKnown: number | null = null;
  let inFlight: Promise<HeightReading> | null = null;

  const fetchReading = async (): Promise<HeightReading> => {
    try {
      const height = await deps.chain.height();
      // The node answers 0 (or any lower height) when its counter read fails for a moment
      // (node-api.md §1): a chain never shrinks, so that is a failed reading, not news.
      if (lastKnown !== null && height < lastKnown) {
        deps.logger.warn({ reported: height, lastKnown }, 'node height went backwards; keeping the last known');
        return { ok: false, lastKnown, error: new Error(`node reported height ${height} below ${lastKnown}`) };
      }
      lastKnown = height;
      return { ok: true, height };
    } catch (error) {
      deps.logger.warn({ err: error }, 'node height unavailable');
      return { ok: false, lastKnown, error };
    }
  };

  return {
    read() {
      if (cached && deps.now() - cached.at < deps.ttlMs) return Promise.resolve(cached.reading);
      inFlight ??= fetchReading().then((reading) => {
        cached = { reading, at: deps.now() };
        inFlight = null;
        return reading;
      });
      return inFlight;
    },
  };
}
