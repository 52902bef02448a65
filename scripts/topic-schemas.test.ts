import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { topicSchemaDocuments } from './topic-schemas.ts';

describe('topic schemas', () => {
  it('match the committed docs/schemas files (run scripts/write-topic-schemas.ts after a change)', async () => {
    for (const [file, doc] of Object.entries(topicSchemaDocuments())) {
      const committed: unknown = JSON.parse(
        await readFile(new URL(`../docs/schemas/${file}`, import.meta.url), 'utf8'),
      );
      expect(committed, file).toEqual(doc);
    }
  });
});
