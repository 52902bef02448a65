import { z } from 'zod';

/**
 * Raw environment → zod schema → frozen typed config, parsed once at start-up. A bad value is a
 * ConfigError with every problem listed; `main` prints it and exits 1.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function parseConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
): Readonly<z.infer<S>> {
  // An empty variable means "not set", so defaults apply (a common shell idiom: VAR= cmd).
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  if (!result.success) throw new ConfigError(`invalid configuration:\n${z.prettifyError(result.error)}`);
  return Object.freeze(result.data);
}

/** `true/false/1/0/yes/no` from the environment. */
export const envBoolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const port = z.coerce.number().int().min(0).max(65535);
