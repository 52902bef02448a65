import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/**
 * Reads a dotenv file such as the `.infra/env` that `npm run infra:up` writes, with Node's own
 * parser (the one behind `--env-file`): comments, quotes and `export` prefixes as Node reads them
 * for `.env`. A missing file reads as empty.
 */
export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  return { ...parseEnv(readFileSync(path, 'utf8')) } as Record<string, string>;
}
