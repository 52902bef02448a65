import { Counter, Gauge, type Registry } from 'prom-client';
import type { FollowerMetrics } from './follower.ts';

/** The follower's metrics in `registry`, fed by the follower's hooks and its progress. */
export interface FollowerGauges extends FollowerMetrics {
  /** A batch of `count` blocks was published (its heights come through `heights`). */
  blocks(count: number): void;
}

export function followerMetrics(registry: Registry): FollowerGauges {
  const registers = [registry];
  const published = new Gauge({
    name: 'mtc_follower_published_height',
    help: 'Newest block published to the log',
    registers,
  });
  const nodeHeight = new Gauge({ name: 'mtc_node_height', help: 'Height the node reports', registers });
  const lag = new Gauge({ name: 'mtc_follower_lag_blocks', help: 'Node height minus published height', registers });
  const blocks = new Counter({ name: 'mtc_follower_blocks_total', help: 'Blocks published', registers });
  const retries = new Counter({
    name: 'mtc_follower_retries_total',
    help: 'Node requests tried again, by reason (head_regressed, block_missing, tx_missing, node_behind_log, timeout, network, http_<status>, truncated)',
    labelNames: ['reason'],
    registers,
  });
  const stalls = new Counter({
    name: 'mtc_follower_stalls_total',
    help: 'Times no block was published for FOLLOWER_STALL_AFTER_MS while the node was ahead',
    registers,
  });
  const stalled = new Gauge({ name: 'mtc_follower_stalled', help: '1 while the follower is stalled', registers });
  const unknownJobTypes = new Counter({
    name: 'mtc_decoder_unknown_job_types_total',
    help: 'Node entries whose job type the decoder does not know (published as generic activity)',
    labelNames: ['job_type'],
    registers,
  });
  return {
    retry: (reason) => retries.inc({ reason }),
    stalled: (is) => {
      if (is) stalls.inc();
      stalled.set(is ? 1 : 0);
    },
    heights: (height, head) => {
      published.set(height);
      nodeHeight.set(head);
      lag.set(head - height);
    },
    unknownJobType: (jobType) => unknownJobTypes.inc({ job_type: jobType.slice(0, 64) }),
    // Count the batch, not the height: a restarted follower resumes at its log's last block.
    blocks: (count) => blocks.inc(count),
  };
}
