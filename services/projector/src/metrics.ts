import { Counter, Gauge, type Registry } from 'prom-client';

/** The projector's metrics in `registry`. */
export interface ProjectorGauges {
  /** A batch of `count` block events was projected, up to `height`. */
  projected(height: number, count: number): void;
  /** Messages not yet committed by the group, per topic partition. */
  consumerLag(lags: readonly { topic: string; partition: number; lag: number }[]): void;
  /** A batch has been in hand for PROJECTOR_STALL_AFTER_MS (true); its writes are done (false). */
  stalled(stalled: boolean): void;
}

export function projectorMetrics(registry: Registry): ProjectorGauges {
  const registers = [registry];
  const height = new Gauge({ name: 'mtc_projector_height', help: 'Newest block projected by this process', registers });
  const events = new Counter({ name: 'mtc_projector_blocks_total', help: 'Block events projected', registers });
  const consumerLag = new Gauge({
    name: 'mtc_projector_consumer_lag',
    help: 'Messages not yet committed by the group, per topic partition',
    labelNames: ['topic', 'partition'],
    registers,
  });
  const stalls = new Counter({
    name: 'mtc_projector_stalls_total',
    help: 'Times a batch stayed in hand for PROJECTOR_STALL_AFTER_MS without its writes done',
    registers,
  });
  const stalled = new Gauge({
    name: 'mtc_projector_stalled',
    help: '1 while a batch has been in hand for PROJECTOR_STALL_AFTER_MS or longer',
    registers,
  });
  return {
    projected: (at, count) => {
      height.set(at);
      events.inc(count);
    },
    consumerLag: (lags) => {
      for (const { topic, partition, lag } of lags) consumerLag.set({ topic, partition: String(partition) }, lag);
    },
    stalled: (is) => {
      if (is) stalls.inc();
      stalled.set(is ? 1 : 0);
    },
  };
}
