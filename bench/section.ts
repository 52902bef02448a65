/**
 * The shape every part of `npm run bench` reports in (bench/run.ts prints them as one table and
 * one JSON summary line). A section measures a figure and, where the issue sets one, the ceiling
 * it is held to, measured in the same run so machine noise cancels out.
 */
export interface BenchOptions {
  /** `--quick`: small workloads, the whole suite under 3 minutes. */
  quick: boolean;
  /** Measure distributed mode too (Kafka, MongoDB stand-in, Redis from .infra/env). */
  distributed: boolean;
}

export interface Measure {
  /** What was measured, e.g. `api embedded GET /api/chain req/s`. */
  name: string;
  value: number;
  unit: string;
  /** The ceiling measured in the same run, in the same unit. */
  ceiling?: number;
  /** value / ceiling (or the ratio the target speaks of, e.g. 1M time / 100k time). */
  ratio?: number;
  /** The target in words, e.g. `ratio >= 0.40`, `<= 20 ms`. */
  target?: string;
  /** Whether the target was met; absent when the row has no target. */
  met?: boolean;
}

export interface SectionResult {
  section: string;
  rows: Measure[];
  /** What a reader needs to interpret the rows (workload size, mode, what was skipped and why). */
  notes: string[];
}

export type Section = (options: BenchOptions) => Promise<SectionResult>;
