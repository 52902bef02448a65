import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * docker-compose.yml cannot be run here (no Docker engine), so it is held to the Compose
 * specification's JSON Schema after interpolation, and to what the README and the services say.
 */
const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');
/**
 * The Compose specification's schema as the dclint linter ships it (draft-07), without its
 * "$schema", which names draft-07 by an address Ajv does not know it by.
 */
const dclint = dirname(createRequire(import.meta.url).resolve('dclint/package.json'));
const { $schema: _, ...composeSchema } = JSON.parse(
  readFileSync(join(dclint, 'schemas/compose.schema.json'), 'utf8'),
) as Record<string, unknown>;

interface Service {
  profiles?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, unknown>;
  healthcheck?: { test: string[] };
}
interface Compose {
  services: Record<string, Service>;
}

/** `${VAR:-default}` as Compose reads it with VAR unset; a whole-value number becomes a number. */
function interpolate(value: unknown, env: Record<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)]));
  }
  if (typeof value !== 'string') return value;
  const text = value.replace(/\$\{(\w+)(?::-([^}]*))?\}/g, (_, name: string, fallback?: string) => {
    return env[name] || fallback || '';
  });
  return value.startsWith('${') && /^\d+$/.test(text) ? Number(text) : text;
}

const compose = (env: Record<string, string> = {}): Compose =>
  interpolate(parse(read('docker-compose.yml'), { merge: true }), env) as Compose;

describe('docker-compose.yml', () => {
  const validate = new Ajv({ strict: false, validateFormats: false, allErrors: true }).compile(composeSchema);

  it.each([
    ['the demo (profile devnet)', {}],
    ['a real node', { CHAIN_NODE_URL: 'https://node.example', NFT_IMAGE_ALLOW_HOSTS: 'images.example' }],
  ])('is valid against the Compose specification for %s', (_, env) => {
    const valid = validate(compose(env));
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 1)).toEqual([]);
    expect(valid).toBe(true);
  });

  it('leaves the devnet to its profile: no service started without it waits for it', () => {
    const { services } = compose();
    expect(services['devnet']?.profiles).toEqual(['devnet']);
    for (const [name, service] of Object.entries(services)) {
      for (const dependency of Object.keys(service.depends_on ?? {})) {
        expect(services[dependency], `${name} depends on ${dependency}`).toBeDefined();
        const needed = services[dependency]?.profiles ?? [];
        const own = service.profiles ?? [];
        expect(
          needed.every((profile) => own.includes(profile)),
          `${name} waits for ${dependency}, which runs only with --profile ${needed.join(',')}`,
        ).toBe(true);
      }
    }
  });

  it('lets the API fetch the images the devnet writes on chain', () => {
    const { services } = compose();
    const origin = new URL(String(services['devnet']?.environment?.['DEVNET_IMAGE_ORIGIN']));
    expect(origin.hostname).toBe('devnet');
    const allowed = String(services['api']?.environment?.['NFT_IMAGE_ALLOW_HOSTS']).split(',');
    expect(allowed).toContain(origin.host);
    expect(services['follower']?.environment?.['CHAIN_NODE_URL']).toBe(`http://devnet:${origin.port}`);
  });

  it('puts each service on the ops port the README names, and probes the port it serves', () => {
    const { services } = compose();
    const readme = read('README.md');
    for (const name of ['follower', 'projector', 'api']) {
      const env = services[name]?.environment ?? {};
      const line = readme.split('\n').find((l) => l.startsWith(`npm run start:${name} `));
      expect(line, `README line for start:${name}`).toBeDefined();
      expect(line).toContain(`ops on :${env['OPS_PORT']}`);
      const probe = services[name]?.healthcheck?.test.join(' ') ?? '';
      const probed = /127\.0\.0\.1:(\d+)\/healthz/.exec(probe)?.[1];
      expect([String(env['OPS_PORT']), String(env['PORT'])]).toContain(probed);
    }
  });

  it('names only the topics docs/topics.md lists', () => {
    const listed = new Set(
      read('docs/topics.md')
        .split('\n')
        .flatMap((line) => /^\| `(mtc\.[\w.]+)`/.exec(line)?.slice(1) ?? []),
    );
    expect(listed.size).toBeGreaterThan(0);
    for (const topic of read('docker-compose.yml').match(/mtc\.\w+\.v\d+/g) ?? []) {
      expect(listed, topic).toContain(topic);
    }
  });
});
