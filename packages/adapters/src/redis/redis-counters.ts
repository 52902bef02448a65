import { Redis } from 'ioredis';
import type { BlockTxCount, Counters } from '@mtc/ports';

/**
 * Counters on Redis. The only module that imports the client.
 *
 * Minute buckets live in one hash per UTC day (`<prefix>txs:<YYYYMMDD>`, field = minute of day),
 * kept for three days. A Lua script applies a batch of blocks and raises the highest counted
 * height in one atomic step, skipping blocks at or below it: a replayed batch never double counts,
 * even with several projectors racing on the same key.
 */
export interface RedisCountersOptions {
  url: string;
  /** Key prefix, so that several deployments or test files share one server. */
  prefix?: string;
}

const RETENTION_SECONDS = 3 * 86_400;

// KEYS[1] = highest counted height; KEYS[2..] = day hashes.
// ARGV[1] = retention; then per block: height, index of its day key in KEYS, minute of day, count.
const ADD_SCRIPT = `
local top = tonumber(redis.call('GET', KEYS[1]) or '0')
for i = 2, #ARGV, 4 do
  local height = tonumber(ARGV[i])
  if height > top then
    local count = tonumber(ARGV[i + 3])
    if count > 0 then
      local key = KEYS[tonumber(ARGV[i + 1])]
      redis.call('HINCRBY', key, ARGV[i + 2], count)
      redis.call('EXPIRE', key, ARGV[1])
    end
    top = height
  end
end
redis.call('SET', KEYS[1], top)
return top
`;

export async function createRedisCounters(options: RedisCountersOptions): Promise<Counters> {
  const prefix = options.prefix ?? 'mtc:';
  const redis = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  await redis.connect();
  const dayKey = (minute: number): string =>
    `${prefix}txs:${new Date(minute * 60_000).toISOString().slice(0, 10).replaceAll('-', '')}`;

  return {
    async addBlockTxs(blocks: readonly BlockTxCount[]) {
      if (blocks.length === 0) return;
      const keys = [`${prefix}txs:height`];
      const args: (string | number)[] = [RETENTION_SECONDS];
      for (const b of blocks) {
        const minute = Math.floor(b.timestamp / 60);
        const key = dayKey(minute);
        let at = keys.indexOf(key);
        if (at < 0) at = keys.push(key) - 1;
        args.push(b.height, at + 1, minute % 1440, b.count);
      }
      await redis.eval(ADD_SCRIPT, keys.length, ...keys, ...args);
    },
    async highestCounted() {
      const top = await redis.get(`${prefix}txs:height`);
      return top === null ? 0 : Number(top);
    },
    async txCountBetween(fromTs: number, toTs: number) {
      const first = Math.floor(fromTs / 60);
      const end = Math.floor(toTs / 60);
      const byKey = new Map<string, string[]>();
      for (let m = first; m < end; m++) {
        const key = dayKey(m);
        const fields = byKey.get(key) ?? [];
        fields.push(String(m % 1440));
        byKey.set(key, fields);
      }
      let sum = 0;
      for (const [key, fields] of byKey) {
        const values = await redis.hmget(key, ...fields);
        for (const v of values) sum += v === null ? 0 : Number(v);
      }
      return sum;
    },
    async close() {
      await redis.quit();
    },
  };
}
