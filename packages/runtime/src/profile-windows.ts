import { Session } from 'node:inspector/promises';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from './logger.ts';

/**
 * CPU profiles of the calling thread over short windows that open when a height is first reached
 * (e.g. the start and the end of a backfill), written as `<dir>/<name>-at-<height>.cpuprofile` for
 * Chrome DevTools or `bench/profile-summary.ts`. Where `node --cpu-prof` profiles a whole run, this
 * shows how the cost of the same work moves as history grows. One window at a time; a mark passed
 * while a window is open opens when that one closes.
 */
export function profileWindows(options: {
  /** Heights, ascending; none: `observe` does nothing. */
  at: readonly number[];
  seconds: number;
  dir: string;
  name: string;
  logger: Logger;
}): { observe(height: number): void; stop(): Promise<void> } {
  const marks = [...options.at].sort((a, b) => a - b);
  let open: Promise<void> | undefined;

  const record = async (mark: number, height: number): Promise<void> => {
    const session = new Session();
    session.connect();
    try {
      await session.post('Profiler.enable');
      await session.post('Profiler.start');
      options.logger.info({ mark, height, seconds: options.seconds }, 'cpu profile window opened');
      await new Promise((resolve) => setTimeout(resolve, options.seconds * 1000).unref());
      const { profile } = await session.post('Profiler.stop');
      await mkdir(options.dir, { recursive: true });
      const file = join(options.dir, `${options.name}-at-${mark}.cpuprofile`);
      await writeFile(file, JSON.stringify(profile));
      options.logger.info({ mark, file }, 'cpu profile written');
    } finally {
      session.disconnect();
    }
  };

  return {
    observe(height) {
      if (open || marks.length === 0 || height < marks[0]!) return;
      const mark = marks.shift()!;
      open = record(mark, height)
        .catch((error: unknown) => options.logger.warn({ err: error, mark }, 'cpu profile failed'))
        .finally(() => (open = undefined));
    },
    async stop() {
      marks.length = 0;
      await open;
    },
  };
}
