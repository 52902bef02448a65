import { ActivityEvent, BlockEvent, BlockEventV1, BlockEventV2, StateEvent, TOPICS } from '@mtc/domain';
import { z } from 'zod';

/** JSON Schema (draft 2020-12) of every topic's message value, keyed by output file name. */
export function topicSchemaDocuments(): Record<string, unknown> {
  const doc = (topic: string, schema: z.ZodType) => ({
    $id: `urn:mtc-explorer:schema:${topic}`,
    title: `${topic} message value`,
    ...z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }),
  });
  return {
    [`${TOPICS.blocks}.json`]: doc(TOPICS.blocks, BlockEvent),
    [`${TOPICS.blocksV2}.json`]: doc(TOPICS.blocksV2, BlockEventV2),
    [`${TOPICS.blocksV1}.json`]: doc(TOPICS.blocksV1, BlockEventV1),
    [`${TOPICS.state}.json`]: doc(TOPICS.state, StateEvent),
    [`${TOPICS.activity}.json`]: doc(TOPICS.activity, ActivityEvent),
  };
}
