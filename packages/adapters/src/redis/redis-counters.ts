import { Redis, ReplyError } from 'ioredis';
import type { BlockTxCount, Counters } from '@mtc/ports';

/**
 * Counters on Redis. The only module that imports the client.
 *
 * Minute buckets live in one hash per UTC day (`<prefix>txs:<YYYYMMDD>`, field = minute of day),
 * kept for three days. A Lua script applies a batch of blocks and raises the highest counted
 * height in one atomic step, skipping blocks at or below it: a replayed batch never double counts,
 * even with several projectors racing on the same key.
 *
 * Redis may lose everything at any moment (a restart without persistence, FLUSHALL). A call that
 * finds the counted height gone although this client has seen one since it last reported 0 from
 * `highestCounted` counts nothing and rejects with a retryable `CountersLostError`, in the same
 * atomic step: counting that batch alone would leave a height above empty buckets, which no one
 * would ever refill. The caller asks `highestCounted` again (0), refills, then counts the batch.
 *
 * Errors where the server never answered (connection refused or lost, reconnecting for longer than
 * a few attempts) are marked retryable: the client reconnects by itself once Redis is back.
 */
export interface RedisCountersOptions {
  url: string;
  /** Key prefix, so that several deployments or test files share one server. */
  prefix?: string;
}

const RETENTION_SECONDS = 3 * 86_400;

// KEYS[1] = highest counted height; KEYS[2..] = day hashes.
// ARGV[1] = retention; ARGV[2] = 1 if the height must exist (else the data was lost: return -1);
// then per block: height, index of its day key in KEYS, minute of day, count.
const ADD_SCRIPT = `
local stored = redis.call('GET', KEYS[1])
if not stored and ARGV[2] == '1' then
  return -1
end
local top = tonumber(stored or '0')
for i = 3, #ARGV, 4 do
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

/** The counters lost their data since this client last saw them (see the module comment). */
export class CountersLostError extends Error {
  override name = 'CountersLostError';
  readonly retryable = true;
}

/** Reply errors a later attempt may not get: the server is loading or busy. */
const TRANSIENT_REPLY = /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN)\b/;

export async function createRedisCounters(options: RedisCountersOptions): Promise<Counters> {
  const prefix = options.prefix ?? 'mtc:';
  const redis = new Redis(options.url, { lazyConnect: true, maxRetriesPerRequest: 3 });
  // Connection errors also reject the commands they hit; the event only needs a listener, or the
  // client prints each failed reconnection attempt to the console.
  redis.on('error', () => {});
  await redis.connect();
  /** This client saw a counted height since it last reported 0: a missing one means data lost. */
  let sawCounted = false;
  /** Marks errors where Redis did not answer (or answered "not now") as retryable. */
  const call = async <T>(command: () => Promise<T>): Promise<T> => {
    try {
      return await command();
    } catch (error) {
      const noAnswer = !(error instanceof ReplyError) && redis.status !== 'end';
      if (error instanceof Error && (noAnswer || TRANSIENT_REPLY.test(error.message)))
        Object.assign(error, { retryable: true });
      throw error;
    }
  };
  const dayKey = (minute: number): string =>
    `${prefix}txs:${new Date(minute * 60_000).toISOString().slice(0, 10).replaceAll('-', '')}`;

  return {
    async addBlockTxs(blocks: readonly BlockTxCount[]) {
      if (blocks.length === 0) return;
      const keys = [`${prefix}txs:height`];
      const args: (string | number)[] = [RETENTION_SECONDS, sawCounted ? 1 : 0];
      for (const b of blocks) {
        const minute = Math.floor(b.timestamp / 60);
        const key = dayKey(minute);
        let at = keys.indexOf(key);
        if (at < 0) at = keys.push(key) - 1;
        args.push(b.height, at + 1, minute % 1440, b.count);
      }
      const top = Number(await call(() => redis.eval(ADD_SCRIPT, keys.length, ...keys, ...args)));
      if (top < 0) {
        sawCounted = false;
        throw new CountersLostError(
          'the counters lost their data (Redis restarted or was flushed): refill them before counting',
        );
      }
      sawCounted = top > 0;
    },
    async highestCounted() {
      const stored = await call(() => redis.get(`${prefix}txs:height`));
      const top = stored === null ? 0 : Number(stored);
      sawCounted = top > 0;
      return top;
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
        const values = await call(() => redis.hmget(key, ...fields));
        for (const v of values) sum += v === null ? 0 : Number(v);
      }
      return sum;
    },
    async close() {
      await redis.quit();
    },
  };
}
