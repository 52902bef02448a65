import { existsSync, readFileSync } from 'node:fs';

/**
 * Reads a `KEY=value` file such as the `.infra/env` that `npm run infra:up` writes. Blank lines
 * and `#` comments are skipped; a missing file reads as empty.
 */
export function readEnvFile(path: string): Record<string, string> {
  if (!existsSync(path)) return {};
  return Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('#') && line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')).trim(), line.slice(line.indexOf('=') + 1).trim()]),
  );
}
