import type { RawBlock, RawEntry } from '@mtc/domain';
import { ChaincodeError } from '../chaincode/errors.ts';
import type { ScriptedTx } from '../jobs/genesis.ts';
import { scriptedBlock } from '../jobs/genesis.ts';
import type { Call, Job } from '../jobs/job.ts';
import { jobFor, pickJob } from '../jobs/registry.ts';
import type { Rng } from '../rng.ts';
import { isLegacy } from '../chaincode/versions.ts';
import { createStub, type TxEffects } from '../world/stub.ts';
import type { World } from '../world/world.ts';
import { lifecycleEntries, txEntries, type BlockRef, type TxWrites } from './entries.ts';
import { eraAt, type ChaincodeEra } from './eras.ts';
import { blockHash, txId } from './ids.ts';

interface ChainTx {
  readonly id: string;
  readonly timestamp: number;
  readonly valid: boolean;
  readonly entries: readonly RawEntry[];
}

interface ChainBlock {
  readonly block: RawBlock;
  readonly txs: readonly ChainTx[];
}

export interface BlockBuilderDeps {
  readonly seed: number;
  readonly world: World;
  readonly rng: Rng;
  readonly jobs: readonly Job[];
  /** The legacy chaincode's functions (CC-22), planned while a legacy version is installed. */
  readonly legacyJobs?: readonly Job[];
  /** Which chaincode version is installed from which height; default: the current one throughout. */
  readonly eras?: readonly ChaincodeEra[];
  readonly walletCap: number;
  readonly invalidTxRate: number;
  readonly emptyBlockRate: number;
  /** Mean transactions a non-empty block aims for; unset: SLOT_WEIGHTS as they are (mean 3.3). */
  readonly txsPerBlock?: number;
  /** Origin of the NFT image URLs clients write (PlanContext.imageOrigin). */
  readonly imageOrigin?: string;
}

/** Fabric TxValidationCode MVCC_READ_CONFLICT. */
const MVCC_READ_CONFLICT = 11;

/** How many txs a non-empty block aims for (1–6, mean 3.3; calls that conflict are left out). */
const SLOT_WEIGHTS: readonly (readonly [number, number])[] = [
  [1, 15],
  [2, 20],
  [3, 22],
  [4, 18],
  [5, 13],
  [6, 12],
];
const SLOT_MEAN =
  SLOT_WEIGHTS.reduce((sum, [n, w]) => sum + n * w, 0) / SLOT_WEIGHTS.reduce((sum, [, w]) => sum + w, 0);

/**
 * A non-empty block's slot count: SLOT_WEIGHTS scaled to `mean`, one draw either way, so a devnet
 * without `txsPerBlock` draws exactly what it always drew.
 */
function drawSlots(rng: Rng, mean: number | undefined): number {
  const slots = rng.weighted(SLOT_WEIGHTS);
  return mean === undefined ? slots : Math.max(1, Math.round((slots * mean) / SLOT_MEAN));
}

/** A transaction before its block's hash is known; a lifecycle commit writes nothing. */
type PendingTx = TxWrites & { readonly lifecycle?: true };

/**
 * Cuts block `height` with the endorsing peers' clock at `timestamp`, applying its valid transactions
 * to the world.
 *
 * Fabric semantics kept: a transaction whose reads or writes touch a key an earlier valid
 * transaction of the same block wrote would fail MVCC validation, so valid transactions of one block
 * never overlap (a conflicting call is left out, as the bridge holds such calls back for a later
 * block). With probability invalidTxRate a transaction is instead committed as MVCC_READ_CONFLICT:
 * listed, with its full write set, and not applied.
 *
 * Two clocks (metacoin-chain.md §5 "Times"): every record's jobdate, regdate and createdate is the
 * peer's clock (`stub.now` = `timestamp`, the same for the whole block), while a transaction's
 * timestamp is the channel-header time its client set, which is off by a few seconds either way and
 * now and then by minutes (clientSkew). So transactions of one block carry different times, and a
 * block, whose timestamp is its first listed transaction's (BR get_block), can be older than the
 * block before it. Planners plan against the peer's clock, so they never propose what the peer rejects.
 */
export function buildBlock(deps: BlockBuilderDeps, height: number, timestamp: number): ChainBlock {
  const era: ChaincodeEra = deps.eras ? eraAt(deps.eras, height) : { version: 'current', from: 1 };
  const jobs = isLegacy(era.version) ? (deps.legacyJobs ?? deps.jobs) : deps.jobs;
  const script = scriptedBlock(height);
  const cut: BlockCut = { ...deps, installed: jobs, era, height, now: timestamp };
  const pending = script ? runScript(cut, script) : runRandom(cut);
  const ids = pending.map((tx) => tx.id);
  const hash = blockHash(deps.seed, height, timestamp, ids);
  const ref: BlockRef = { hash, sn: String(height) };
  const txs: ChainTx[] = pending
    .map((tx) => ({
      id: tx.id,
      timestamp: tx.timestamp,
      valid: tx.validationCode === 0,
      entries: tx.lifecycle ? lifecycleEntries(tx.id, tx.timestamp, ref) : txEntries(tx, ref),
    }))
    // The bridge leaves out txs without entries (dummy fills) from the block's list.
    .filter((tx) => tx.entries.length > 0);
  const block: RawBlock = {
    id: hash,
    sn: ref.sn,
    transaction: txs.map((tx) => ({ id: tx.id, timestamp: tx.timestamp })),
    timestamp: txs[0]?.timestamp ?? timestamp,
  };
  return { block, txs };
}

/**
 * How far a client's clock is off the peer's, in seconds: mostly within 3 s either way; 2 % of
 * clients are behind by 10 s to 15 min (a device with a stale clock, a call signed and sent late),
 * 0.5 % ahead by 10 s to 2 min.
 */
export function clientSkew(rng: Rng): number {
  const roll = rng.next();
  if (roll < 0.02) return -rng.int(10, 900);
  if (roll < 0.025) return rng.int(10, 120);
  return rng.int(-3, 3);
}

/** A block being cut: the installed chaincode's era and functions, the height, the peers' clock. */
interface BlockCut extends BlockBuilderDeps {
  readonly installed: readonly Job[];
  readonly era: ChaincodeEra;
  readonly height: number;
  readonly now: number;
}

function runRandom(cut: BlockCut): PendingTx[] {
  const { rng, world, era, height, now } = cut;
  const out: PendingTx[] = [];
  // A new chaincode version is installed by a lifecycle transaction, first in its first block.
  if (era.from === height && height > 1) {
    out.push(lifecycleTx(txId(cut.seed, height, 0, 'lifecycle', [era.version]), now + clientSkew(rng)));
  }
  const slots = Math.max(out.length, rng.chance(cut.emptyBlockRate) ? 0 : drawSlots(rng, cut.txsPerBlock));
  const written = new Set<string>();
  for (let attempt = 0; out.length < slots && attempt < slots * 4; attempt++) {
    const job = pickJob(rng, cut.installed, world);
    const call = job.plan({
      world,
      rng,
      now,
      walletCap: cut.walletCap,
      busy: written,
      chaincode: era.version,
      ...(cut.imageOrigin === undefined ? {} : { imageOrigin: cut.imageOrigin }),
    });
    if (!call) continue;
    const effects = execute(cut, job, call);
    const invalid = rng.chance(cut.invalidTxRate);
    if (!invalid && overlaps(effects, written)) continue;
    out.push({
      id: txId(cut.seed, height, out.length, call.fcn, call.args),
      timestamp: now + clientSkew(rng),
      validationCode: invalid ? MVCC_READ_CONFLICT : 0,
      writes: effects.writes,
    });
    if (!invalid) {
      world.apply(effects.writes);
      for (const { key } of effects.writes) written.add(key);
    }
  }
  return out;
}

/** Scripted blocks (the genesis) are written on the peer itself: their times are the peer's. */
function runScript(cut: BlockCut, script: readonly ScriptedTx[]): PendingTx[] {
  const { rng, world, height, now } = cut;
  return script.map((step, slot) => {
    if (step.kind === 'lifecycle') return lifecycleTx(txId(cut.seed, height, slot, 'lifecycle', []), now);
    const call = step.plan({ world, rng, now, walletCap: cut.walletCap });
    const effects = execute(cut, jobFor(cut.installed, call.fcn), call);
    world.apply(effects.writes);
    return {
      id: txId(cut.seed, height, slot, call.fcn, call.args),
      timestamp: now,
      validationCode: 0,
      writes: effects.writes,
    };
  });
}

function lifecycleTx(id: string, timestamp: number): PendingTx {
  return { lifecycle: true, id, timestamp, validationCode: 0, writes: [] };
}

function execute(cut: BlockCut, job: Job, call: Call): TxEffects {
  const { version } = cut.era;
  const { stub, effects } = createStub(cut.world, cut.now, cut.rng, version);
  try {
    job.execute(stub, call);
  } catch (error) {
    if (error instanceof ChaincodeError) {
      // Planners propose only calls the chaincode accepts: a rejection is a devnet bug.
      throw new Error(`devnet planned a ${call.fcn} call the ${version} chaincode rejects (block ${cut.height})`, {
        cause: error,
      });
    }
    throw error;
  }
  return effects();
}

function overlaps(effects: TxEffects, written: ReadonlySet<string>): boolean {
  for (const key of effects.reads) if (written.has(key)) return true;
  for (const { key } of effects.writes) if (written.has(key)) return true;
  return false;
}
