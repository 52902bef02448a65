import { SingleBar } from 'cli-progress';
import type { Logger } from './logger.ts';

/**
 * Progress of a long command (a snapshot, a rebuild, a backfill at start-up), shown where its
 * reader is: a bar with rate and ETA redrawn in place when stderr is a terminal, and otherwise —
 * a CI log, a file, a container's log collector — a plain line at a modest rate (`everyMs`), as a
 * pino record when the command logs JSON (its logs stay JSON) or as a text line on stderr when it
 * does not. The bar never goes to stdout, which carries the commands' results and JSON logs.
 */
export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  /** What is progressing, e.g. `snapshot` or `rebuild`: the bar's prefix and the line's message. */
  label: string;
  /** What `done` counts, e.g. `blocks`. */
  unit: string;
  total: number;
  /** Where the bar or the plain lines go. Default: stderr. */
  stream?: ProgressStream;
  /** Whether to draw a bar; default: whether `stream` is a terminal (a worker thread passes its main thread's). */
  tty?: boolean;
  /** When not a terminal: lines as pino records of this logger rather than text on `stream`. */
  logger?: Logger;
  /** When not a terminal: at most one line per this many ms (the first and the last always). Default 5 s. */
  everyMs?: number;
  /** Wall clock in ms; tests pin it. */
  now?: () => number;
}

export interface Progress {
  /** `done` units of `total` (a moving target may pass a new total). */
  update(done: number, total?: number): void;
  /** Shows the final state once and releases the terminal line. Idempotent. */
  stop(): void;
}

/** Units per second over the last RATE_WINDOW_MS, so the rate follows a pace that changes. */
const RATE_WINDOW_MS = 10_000;

export interface ProgressFigures {
  done: number;
  total: number;
  /** Units per second, 0 until two samples a moment apart. */
  rate: number;
  /** Seconds left at `rate`, null while the rate is unknown. */
  etaSeconds: number | null;
}

/** Rate and ETA from samples of `done` over a sliding window. */
export function createRateMeter(now: () => number): { sample(done: number, total: number): ProgressFigures } {
  const samples: { t: number; done: number }[] = [];
  return {
    sample(done, total) {
      const t = now();
      samples.push({ t, done });
      while (samples.length > 2 && t - samples[1]!.t >= RATE_WINDOW_MS) samples.shift();
      const first = samples[0]!;
      const seconds = (t - first.t) / 1000;
      const rate = seconds > 0 ? Math.max(0, (done - first.done) / seconds) : 0;
      const left = Math.max(0, total - done);
      return { done, total, rate, etaSeconds: rate > 0 ? Math.round(left / rate) : left === 0 ? 0 : null };
    },
  };
}

/** `1h02m`, `3m05s`, `42s`; `?` when unknown. */
export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  if (s >= 60) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${s}s`;
}

const formatRate = (rate: number): string => (rate >= 100 ? String(Math.round(rate)) : rate.toFixed(1));
const percentOf = (f: ProgressFigures): number => (f.total > 0 ? Math.min(100, (f.done / f.total) * 100) : 100);

/** The plain line of the non-terminal form. */
export function progressLine(label: string, unit: string, f: ProgressFigures): string {
  return `${label}: ${f.done}/${f.total} ${unit} (${percentOf(f).toFixed(1)}%), ${formatRate(f.rate)} ${unit}/s, ETA ${formatDuration(f.etaSeconds)}`;
}

export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? Date.now;
  const meter = createRateMeter(now);
  const tty = options.tty ?? stream.isTTY === true;
  let total = options.total;
  let stopped = false;
  // The rate counts from now: the first update already has a pace.
  meter.sample(0, total);

  if (tty) {
    const bar = new SingleBar({
      // cli-progress only needs write (and readline's cursor codes, which are writes too).
      stream: stream as NodeJS.WritableStream,
      format: `${options.label} [{bar}] {percentage}% | {value}/{total} ${options.unit} | {rate} ${options.unit}/s | ETA {eta_left}`,
      barsize: 30,
      hideCursor: false,
      fps: 5,
    });
    let last: ProgressFigures = { done: 0, total, rate: 0, etaSeconds: null };
    bar.start(total, 0, { rate: '0', eta_left: '?' });
    return {
      update(done, newTotal) {
        if (stopped) return;
        if (newTotal !== undefined && newTotal !== total) bar.setTotal((total = newTotal));
        last = meter.sample(done, total);
        bar.update(done, { rate: formatRate(last.rate), eta_left: formatDuration(last.etaSeconds) });
      },
      stop() {
        if (stopped) return;
        stopped = true;
        bar.update(last.done, { rate: formatRate(last.rate), eta_left: formatDuration(last.etaSeconds) });
        bar.stop();
      },
    };
  }

  const everyMs = options.everyMs ?? 5000;
  let lastLineAt = -Infinity;
  let last: ProgressFigures | undefined;
  let shown: ProgressFigures | undefined;
  const logger = options.logger?.child({ component: 'progress' });
  const emit = (f: ProgressFigures): void => {
    shown = f;
    lastLineAt = now();
    if (logger)
      logger.info(
        {
          done: f.done,
          total: f.total,
          unit: options.unit,
          percent: Number(percentOf(f).toFixed(1)),
          rate: Number(formatRate(f.rate)),
          etaSeconds: f.etaSeconds,
        },
        `${options.label} progress`,
      );
    else stream.write(`${progressLine(options.label, options.unit, f)}\n`);
  };
  return {
    update(done, newTotal) {
      if (stopped) return;
      if (newTotal !== undefined) total = newTotal;
      last = meter.sample(done, total);
      if (now() - lastLineAt >= everyMs) emit(last);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (last && last !== shown) emit(last);
    },
  };
}

/**
 * A catch-up shown only while it is one: a follower or projector that starts far behind its target
 * (the node's head, the log's newest block) shows its progress until it reaches it, then stops
 * showing (the ordinary logs go on). `observe` takes each new position and target.
 */
export interface CatchUp {
  observe(done: number, target: number): void;
  stop(): void;
}

export function trackCatchUp(options: Omit<ProgressOptions, 'total'> & { minGap: number }): CatchUp {
  let progress: Progress | undefined;
  let finished = false;
  let start = 0;
  return {
    observe(done, target) {
      if (finished) return;
      if (!progress) {
        if (target - done < options.minGap) return;
        start = done;
        progress = createProgress({ ...options, total: target - start });
      }
      progress.update(done - start, target - start);
      if (done >= target) {
        finished = true;
        progress.stop();
      }
    },
    stop() {
      finished = true;
      progress?.stop();
    },
  };
}
