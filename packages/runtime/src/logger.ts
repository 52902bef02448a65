import { pino, type Logger } from 'pino';

export type { Logger };

/** One pino logger per process; modules take `logger.child({ component })`. */
export function createLogger(options: { level?: string; name?: string } = {}): Logger {
  return pino({ level: options.level ?? 'info', name: options.name ?? 'mtc-explorer' });
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
