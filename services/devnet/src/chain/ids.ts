import { createHash } from 'node:crypto';

/**
 * Tx ids and block data_hashes: sha256 over content that is unique within a devnet (height, slot)
 * and includes the seed, so two seeds never share an id. A tx id also covers its function and
 * nonce (the last argument), which is enough to tell calls apart without hashing long arguments.
 */
export function txId(seed: number, height: number, slot: number, fcn: string, args: readonly string[]): string {
  return sha256Hex(`mtc-devnet|${seed}|tx|${height}|${slot}|${fcn}|${args.at(-1) ?? ''}`);
}

export function blockHash(seed: number, height: number, timestamp: number, txIds: readonly string[]): string {
  return sha256Hex(`mtc-devnet|${seed}|block|${height}|${timestamp}|${txIds.join(',')}`);
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
