import type * as Producer from '@mtc/domain';
import type {
  ActivityEventV1,
  BlockEventV1,
  BlockEventV2,
  BlockEventV3,
  KnownActivity,
  StateEventV1,
} from '@mtc/topic-types';
import { describe, expectTypeOf, it } from 'vitest';

/**
 * Checked by the typecheck (`npm run typecheck`), not at run time: what the follower publishes —
 * the types of the zod schemas it encodes each message with — is assignable to the message types
 * generated from the published JSON Schemas, so a consumer's types accept every message of the
 * contract. A generated type narrower than the producer's (a 2020-12 construct read wrongly, such
 * as the wallet change's `prefixItems` pairs typed `never[]`) fails here.
 */
describe('@mtc/topic-types', () => {
  it("accepts every message the follower publishes, by the producer's own types", () => {
    expectTypeOf<Producer.BlockEvent>().toExtend<BlockEventV3>();
    expectTypeOf<Producer.BlockEventV2>().toExtend<BlockEventV2>();
    expectTypeOf<Producer.BlockEventV1>().toExtend<BlockEventV1>();
    expectTypeOf<Producer.StateEvent>().toExtend<StateEventV1>();
    expectTypeOf<Producer.ActivityEvent>().toExtend<ActivityEventV1>();
  });

  it('types a known activity by its kind, leaving out the ones a newer producer may add', () => {
    expectTypeOf<Producer.KnownActivity>().toExtend<KnownActivity>();
    expectTypeOf<KnownActivity['kind']>().toEqualTypeOf<Producer.KnownActivity['kind']>();
    expectTypeOf<Extract<KnownActivity, { kind: 'transfer' }>['amount']>().toEqualTypeOf<string>();
    // The whole union keeps the others: its kind is any string.
    expectTypeOf<ActivityEventV1['activity']['kind']>().toEqualTypeOf<string>();
  });
});
