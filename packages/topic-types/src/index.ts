import type { ActivityEventV1 } from './generated/mtc.activity.v1.ts';
import type { BlockEventV3 } from './generated/mtc.blocks.v3.ts';
import type { StateEventV1 } from './generated/mtc.state.v1.ts';
import type { ACTIVITY_KINDS, STATE_WRITE_KINDS } from './generated/topics.ts';

/**
 * The message values of the explorer's topics as TypeScript types, generated from the published
 * JSON Schemas in docs/schemas/ (`npm run generate:clients`), and the topic names. The types say
 * what a valid message holds; they check nothing at run time: validate a message against its schema
 * (as examples/topic-consumer does) before treating it as one.
 */
export type { ActivityEventV1 } from './generated/mtc.activity.v1.ts';
export type { BlockEventV1 } from './generated/mtc.blocks.v1.ts';
export type { BlockEventV2 } from './generated/mtc.blocks.v2.ts';
export type { BlockEventV3 } from './generated/mtc.blocks.v3.ts';
export type { StateEventV1 } from './generated/mtc.state.v1.ts';
export { ACTIVITY_KINDS, STATE_WRITE_KINDS, TOPICS, type TopicMessages } from './generated/topics.ts';

/** A transaction of a block message. */
export type BlockTx = BlockEventV3['txs'][number];

/** A state write of a block message (a `walletChange` among them) … */
export type BlockWrite = BlockTx['writes'][number];
/** … and of a state message (the wallet always whole). */
export type StateWrite = StateEventV1['write'];
export type StateWriteKind = (typeof STATE_WRITE_KINDS)[number];

/** An activity: of a kind this version lists, or of one a newer producer added (skip it). */
export type Activity = ActivityEventV1['activity'];
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];
/** An activity of a kind this version lists, e.g. `Extract<KnownActivity, { kind: 'transfer' }>`. */
export type KnownActivity = Extract<Activity, { kind: ActivityKind }>;
