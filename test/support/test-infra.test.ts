import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseTestInfra, serversAnswer, type DockerProbeResult, type TestInfraChoice } from './test-infra.ts';

const MODULE = new URL('./test-infra.ts', import.meta.url).href;

describe('chooseTestInfra', () => {
  const probeOf = (result: DockerProbeResult) => {
    const calls = { count: 0 };
    const probe = () => {
      calls.count++;
      return Promise.resolve(result);
    };
    return { probe, calls };
  };
  const engine = { found: true, engine: '27.1.1' } as const;
  const none = { found: false, reason: 'Could not find a working container runtime strategy' } as const;
  const servers = { KAFKA_BROKERS: 'k:9092', MONGO_URL: 'mongodb://m', REDIS_URL: 'redis://r' };

  it('chooses containers when a Docker engine answers and TEST_INFRA is auto or unset', async () => {
    for (const env of [{}, { TEST_INFRA: 'auto' }, { TEST_INFRA: '' }]) {
      const { probe, calls } = probeOf(engine);
      expect(await chooseTestInfra(env, probe)).toEqual({
        infra: 'docker',
        reason: 'TEST_INFRA=auto, Docker engine 27.1.1',
      });
      expect(calls.count).toBe(1);
    }
  });

  it('falls back to the local servers, saying why, when auto finds no engine', async () => {
    const { probe } = probeOf(none);
    expect(await chooseTestInfra({}, probe)).toEqual({
      infra: 'local',
      reason: 'TEST_INFRA=auto, no Docker engine (Could not find a working container runtime strategy)',
    });
  });

  it('fails with what to do when docker is asked for and no engine answers', async () => {
    const { probe } = probeOf(none);
    await expect(chooseTestInfra({ TEST_INFRA: 'docker' }, probe)).rejects.toThrow(
      /TEST_INFRA=docker, but no Docker engine answered \(Could not find .*\).*npm run infra:up/,
    );
  });

  it('uses containers when docker is asked for, even with servers in the environment', async () => {
    const { probe } = probeOf(engine);
    expect((await chooseTestInfra({ TEST_INFRA: 'docker', ...servers }, probe)).infra).toBe('docker');
  });

  it('never looks for Docker when local is asked for, or auto is given all three servers', async () => {
    for (const env of [{ TEST_INFRA: 'local' }, { ...servers }, { TEST_INFRA: 'auto', ...servers }]) {
      const { probe, calls } = probeOf(engine);
      expect((await chooseTestInfra(env, probe)).infra).toBe('local');
      expect(calls.count).toBe(0);
    }
    // Two of three servers named is no choice: auto still looks.
    const { probe, calls } = probeOf(engine);
    expect((await chooseTestInfra({ KAFKA_BROKERS: 'k:9092', MONGO_URL: 'mongodb://m' }, probe)).infra).toBe('docker');
    expect(calls.count).toBe(1);
  });

  it('rejects any other value of TEST_INFRA', async () => {
    for (const value of ['Docker', 'yes', 'containers']) {
      const { probe, calls } = probeOf(engine);
      await expect(chooseTestInfra({ TEST_INFRA: value }, probe)).rejects.toThrow(
        `TEST_INFRA must be auto, docker or local, not '${value}'`,
      );
      expect(calls.count).toBe(0);
    }
  });
});

/**
 * The real probe, through testcontainers' own runtime strategies, against engines this test
 * serves itself. Each case runs in a fresh process: testcontainers caches its configuration and
 * any runtime it found, per process. HOME and XDG_RUNTIME_DIR point into an empty directory, so no
 * ~/.testcontainers.properties or rootless socket of this machine takes part.
 */
describe('chooseTestInfra with testcontainers looking for an engine', () => {
  let dir = '';
  let socket = '';
  let fakeEngine: Server;
  let silentEngine: ReturnType<typeof createTcpServer>;
  let silentPort = 0;
  const held = new Set<Socket>();
  const requests: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'test-infra-'));
    // Not in `dir` itself: that is XDG_RUNTIME_DIR, where the rootless strategy looks for docker.sock.
    await mkdir(join(dir, 'engine'));
    socket = join(dir, 'engine', 'docker.sock');
    // Just enough of the Docker Engine API for testcontainers to accept an engine: `/info`, and
    // the bridge network it inspects when it finds itself inside a container (/.dockerenv).
    fakeEngine = createHttpServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      const path = (req.url ?? '').replace(/^\/v[\d.]+/, '').split('?')[0];
      const body =
        path === '/info'
          ? { ServerVersion: '99.0.0-fake', OperatingSystem: 'fake engine', OSType: 'linux', Architecture: 'x86_64' }
          : path === '/networks/bridge'
            ? { IPAM: { Config: [{ Gateway: '127.0.0.1' }] } }
            : undefined;
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body ?? { message: 'not found' }));
    });
    await new Promise<void>((resolve) => fakeEngine.listen(socket, resolve));
    // Accepts connections and never answers.
    silentEngine = createTcpServer((connection) => {
      held.add(connection);
      connection.on('close', () => held.delete(connection));
    });
    await new Promise<void>((resolve) => silentEngine.listen(0, '127.0.0.1', resolve));
    silentPort = (silentEngine.address() as { port: number }).port;
  });

  afterAll(async () => {
    for (const connection of held) connection.destroy();
    await new Promise((resolve) => fakeEngine?.close(resolve));
    await new Promise((resolve) => silentEngine?.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  /** chooseTestInfra(process.env) with the real probe, in a child with exactly this setting. */
  const choose = async (
    env: Record<string, string>,
    probeTimeoutMs = 10_000,
  ): Promise<{ choice?: TestInfraChoice; error?: string }> => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) =>
          !k.startsWith('DOCKER_') &&
          !k.startsWith('TESTCONTAINERS_') &&
          !['TEST_INFRA', 'KAFKA_BROKERS', 'MONGO_URL', 'REDIS_URL'].includes(k),
      ),
    );
    const code = `
      const { chooseTestInfra, probeDocker } = await import(${JSON.stringify(MODULE)});
      try {
        const choice = await chooseTestInfra(process.env, () => probeDocker(${probeTimeoutMs}));
        console.log(JSON.stringify({ choice }));
      } catch (error) {
        console.log(JSON.stringify({ error: error.message }));
      }
      process.exit(0);`;
    const child = spawn(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', code],
      { env: { ...clean, HOME: dir, XDG_RUNTIME_DIR: dir, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exit = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const last = out.trim().split('\n').at(-1) ?? '';
    if (exit !== 0 || !last.startsWith('{')) throw new Error(`probe process failed (${exit}):\n${out}`);
    return JSON.parse(last) as { choice?: TestInfraChoice; error?: string };
  };

  it('finds an engine on the socket DOCKER_HOST names, and chooses containers', async () => {
    requests.length = 0;
    const result = await choose({ DOCKER_HOST: `unix://${socket}` });
    expect(result.choice?.infra).toBe('docker');
    expect(result.choice?.reason).toMatch(
      /^TEST_INFRA=auto, Docker engine 99\.0\.0-fake \(containers reached at \S+\)$/,
    );
    expect(requests.some((r) => /^GET \/(v[\d.]+\/)?info/.test(r))).toBe(true);
  });

  it('does not ask the engine when TEST_INFRA=local', async () => {
    requests.length = 0;
    const result = await choose({ TEST_INFRA: 'local', DOCKER_HOST: `unix://${socket}` });
    expect(result.choice).toEqual({ infra: 'local', reason: 'TEST_INFRA=local' });
    expect(requests).toEqual([]);
  });

  it('gives up on an engine that does not answer: local under auto, an error under docker', async () => {
    const host = { DOCKER_HOST: `tcp://127.0.0.1:${silentPort}` };
    expect((await choose(host, 1_000)).choice).toEqual({
      infra: 'local',
      reason: 'TEST_INFRA=auto, no Docker engine (no answer within 1000 ms)',
    });
    expect((await choose({ ...host, TEST_INFRA: 'docker' }, 1_000)).error).toMatch(
      /^TEST_INFRA=docker, but no Docker engine answered \(no answer within 1000 ms\)/,
    );
  });

  // As on this repository's CI: no DOCKER_HOST and no socket. Skipped where an engine's socket
  // exists, as it would be found.
  const socketHere = ['/var/run/docker.sock', `/run/user/${userInfo().uid}/docker.sock`].some((p) => existsSync(p));
  it.skipIf(socketHere)('chooses the local servers without Docker, and fails when docker is asked for', async () => {
    expect((await choose({})).choice).toEqual({
      infra: 'local',
      reason: 'TEST_INFRA=auto, no Docker engine (Could not find a working container runtime strategy)',
    });
    expect((await choose({ TEST_INFRA: 'docker' })).error).toMatch(/^TEST_INFRA=docker, but no Docker engine answered/);
  });
});

describe('serversAnswer', () => {
  let server: ReturnType<typeof createTcpServer>;
  let port = 0;
  beforeAll(async () => {
    server = createTcpServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is true when every address of every form answers', async () => {
    const forms = [
      `127.0.0.1:${port},127.0.0.1:${port}`,
      `mongodb://127.0.0.1:${port}/db?x=1`,
      `redis://:pw@127.0.0.1:${port}`,
    ];
    expect(await serversAnswer(forms)).toBe(true);
  });

  it('is false when one does not answer, or is missing or unreadable', async () => {
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await serversAnswer([`127.0.0.1:${port}`, `redis://127.0.0.1:${closedPort}`])).toBe(false);
    expect(await serversAnswer([`127.0.0.1:${port}`, ''])).toBe(false);
    expect(await serversAnswer([`mongodb://127.0.0.1/db`])).toBe(false);
  });
});
