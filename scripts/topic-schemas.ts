import { BlockEvent, TOPICS } from '@mtc/domain';
import { z } from 'zod';

/** JSON Schema (draft 2020-12) of every topic's message value, keyed by output file name. */
export function topicSchemaDocuments(): Record<string, unknown> {
  return {
    [`${TOPICS.blocks}.json`]: {
      $id: `urn:mtc-explorer:schema:${TOPICS.blocks}`,
      title: `${TOPICS.blocks} message value`,
      ...z.toJSONSchema(BlockEvent, { target: 'draft-2020-12', io: 'output' }),
    },
  };
}
