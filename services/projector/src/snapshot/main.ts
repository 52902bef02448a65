import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openEventLog, openReadStore, topicsOf } from '@mtc/adapters';
import { BlockEvent } from '@mtc/domain';
import { openModels } from '@mtc/read-models';
import { createProgress, createServiceContext } from '@mtc/runtime';
import { z } from 'zod';
import { ProjectorBaseConfig } from '../ports.ts';
import { parseSnapshotArgs, snapshotFileName, USAGE, UsageError } from './args.ts';
import { writeRows, type WrittenFile } from './files.ts';
import {
  NFT_HOLDER_COLUMNS,
  nftHolderRows,
  NotAtHeight,
  TOKEN_HOLDER_COLUMNS,
  tokenHolderRows,
  tokensToList,
} from './holders.ts';
import { replayToHeight } from './replay.ts';

/**
 * `npm run snapshot -- --height H (--token ID | --all-tokens | --nft ID)… [--format csv|ndjson]
 * [--out DIR] [--keep-store]`: the holders as of block H, one file per subject (flags repeat). Replays the block topic (file log under
 * DATA_DIR, or Kafka with KAFKA_BROKERS and TOPIC_PREFIX, as the other services read them) up to H
 * into a scratch SQLite store in a temporary directory (removed at the end unless --keep-store),
 * writes the holder files and prints one JSON line: the height, its block time, and per file its
 * path, row count and sha256. Progress goes to stderr. It never touches the configured read store.
 */
const Config = ProjectorBaseConfig.safeExtend({ LOG_LEVEL: z.string().default('warn') });

/** Ends the command with one sentence on stderr and exit code 1. */
function refuse(message: string): never {
  console.error(`snapshot: ${message}`);
  process.exit(1);
}

let args;
try {
  args = parseSnapshotArgs(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`snapshot: ${error.message}\n${USAGE}`);
  process.exit(1);
}

const ctx = createServiceContext('snapshot', Config);
const { config, logger, shutdown } = ctx;
const topics = topicsOf(config);
const log = await openEventLog(config, logger);
shutdown.add('log', () => log.close());

const newest = await log.lastValue(topics.blocks);
if (newest === null) refuse(`the block topic ${topics.blocks} has no blocks yet`);
const newestHeight = BlockEvent.parse(newest).height;
if (args.height > newestHeight) refuse(`height ${args.height} is above the log's newest block (${newestHeight})`);

const scratch = await mkdtemp(join(tmpdir(), 'mtc-snapshot-'));
if (!args.keepStore) shutdown.add('scratch store files', () => rm(scratch, { recursive: true, force: true }));
// The scratch store is always the embedded one, whatever store the environment names.
const store = await openReadStore({ ...config, MONGO_URL: undefined, DATA_DIR: scratch });
shutdown.add('scratch store', () => store.close());

try {
  const progress = createProgress({ label: 'snapshot', unit: 'blocks', total: args.height });
  await replayToHeight({
    log,
    blocksTopic: topics.blocks,
    group: `mtc-snapshot-${Date.now()}-${process.pid}`,
    store,
    height: args.height,
    stats: { statsUtcOffsetMinutes: config.STATS_UTC_OFFSET_MINUTES },
    signal: shutdown.signal,
    onProgress: (height) => progress.update(height),
  });
  progress.stop();

  const models = openModels(store);
  const head = await models.head.get('indexed');
  if (head?.height !== args.height) throw new Error(`the replay stopped at ${head?.height ?? 0}, not ${args.height}`);
  // Locks as of the height: an entry counts as locked when its unlock date is after H's block time.
  const lockTime = head.timestamp;

  await mkdir(resolve(args.out), { recursive: true });
  const files: WrittenFile[] = [];
  for (const subject of args.subjects) {
    const path = resolve(args.out, snapshotFileName({ height: args.height, subject, format: args.format }));
    if (subject.kind === 'nft') {
      files.push(await writeRows(path, args.format, NFT_HOLDER_COLUMNS, await nftHolderRows(models, subject.id)));
    } else {
      const tokens = await tokensToList(models, subject.kind === 'token' ? subject.token : 'all');
      files.push(await writeRows(path, args.format, TOKEN_HOLDER_COLUMNS, tokenHolderRows(models, tokens, lockTime)));
    }
  }
  console.log(
    JSON.stringify({
      height: head.height,
      blockHash: head.hash,
      blockTime: head.timestamp,
      files,
      ...(args.keepStore ? { scratchStore: scratch } : {}),
    }),
  );
} catch (error) {
  await shutdown.run('failed');
  if (error instanceof NotAtHeight) refuse(`${error.message} at height ${args.height}`);
  if (shutdown.signal.aborted && (error as Error).message === 'interrupted') process.exit(130);
  logger.fatal({ err: error }, 'snapshot failed');
  process.exit(1);
}
await shutdown.run('done');
process.exit(0);
