import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson, spawnExplorer, waitFor, type ExplorerProcess } from '../support/explorer-process.ts';

/**
 * `npm start` as a newcomer runs it: no chain node, no servers configured. The explorer starts its
 * built-in devnet, indexes it, and serves the NFTs' images, which the devnet serves itself on
 * loopback — a host the API fetches only because the explorer allow-lists its own devnet.
 */
describe('first start with no configuration (built-in devnet)', () => {
  let dataDir: string;
  let explorer: ExplorerProcess | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mtc-first-'));
    explorer = await spawnExplorer({ DATA_DIR: dataDir, DEVNET_HISTORY_BLOCKS: '1500', CHAIN_NODE_URL: undefined });
    await waitFor(
      'the built-in devnet to be indexed',
      async () => {
        const { body } = await getJson<{ localBlock: number }>(`${explorer!.apiUrl}/api/chain`);
        return body.localBlock >= 1500 ? true : undefined;
      },
      240_000,
      250,
    );
  }, 300_000);

  afterAll(async () => {
    await explorer?.kill('SIGTERM');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const MAGIC: Record<string, number[]> = { 'image/png': [0x89, 0x50, 0x4e, 0x47], 'image/jpeg': [0xff, 0xd8, 0xff] };

  it('serves the images of its NFTs, as PNG or JPEG with the matching bytes', async () => {
    const api = explorer!.apiUrl;
    const { body } = await waitFor('NFTs to be listed', async () => {
      const res = await getJson<{ items: { id: string; protocol: string }[] }>(`${api}/api/nfts?limit=50`);
      return res.body.items.some((i) => i.protocol === 'MRC401') && res.body.items.some((i) => i.protocol === 'MRC402')
        ? res
        : undefined;
    });
    const ids = ['MRC401', 'MRC402'].map((p) => body.items.find((i) => i.protocol === p)!.id);
    for (const id of ids) {
      const res = await fetch(`${api}/api/v1/nft/${id}/image`);
      expect(res.status, id).toBe(200);
      const type = res.headers.get('content-type') ?? '';
      const bytes = [...new Uint8Array(await res.arrayBuffer())];
      expect(Object.keys(MAGIC), id).toContain(type);
      expect(bytes.slice(0, MAGIC[type]!.length), `${id} ${type}`).toEqual(MAGIC[type]);
    }
  });
});
