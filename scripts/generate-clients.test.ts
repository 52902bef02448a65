import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { generatedClientFiles, REGENERATE, toDraft7Tuples } from './generate-clients.ts';

const ROOT = new URL('../', import.meta.url);

describe('generated clients', () => {
  it(`equal the committed files byte for byte (run \`${REGENERATE}\` after changing the API or a topic schema)`, async () => {
    const files = await generatedClientFiles();
    expect([...files.keys()].sort()).toEqual([
      'packages/api-client/src/generated/openapi.ts',
      'packages/topic-types/src/generated/mtc.activity.v1.ts',
      'packages/topic-types/src/generated/mtc.blocks.v1.ts',
      'packages/topic-types/src/generated/mtc.blocks.v2.ts',
      'packages/topic-types/src/generated/mtc.blocks.v3.ts',
      'packages/topic-types/src/generated/mtc.state.v1.ts',
      'packages/topic-types/src/generated/topics.ts',
    ]);
    const stale: string[] = [];
    for (const [path, text] of files) {
      const committed = await readFile(new URL(path, ROOT)).catch(() => null);
      if (committed === null) stale.push(`${path}: missing`);
      else if (!committed.equals(Buffer.from(text, 'utf8'))) stale.push(`${path}: ${firstDifference(committed, text)}`);
    }
    expect(stale, `generated files are stale: run \`${REGENERATE}\` and commit what it writes`).toEqual([]);
  }, 60_000);
});

/** `line N differs` (1-based), for the failure message. */
function firstDifference(committed: Buffer, generated: string): string {
  const a = committed.toString('utf8').split('\n');
  const b = generated.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  return `line ${(line === -1 ? a.length : line) + 1} differs`;
}

describe('toDraft7Tuples', () => {
  it('writes a 2020-12 tuple as draft 7 does, in nested schemas too', () => {
    const pair = { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false };
    expect(toDraft7Tuples({ type: 'object', properties: { p: { type: 'array', items: pair } } })).toEqual({
      type: 'object',
      properties: {
        p: {
          type: 'array',
          items: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
        },
      },
    });
  });

  it('leaves a property named like a keyword alone, and refuses a keyword whose meaning it would drop', () => {
    const schema = { type: 'object', properties: { if: { type: 'string' }, prefixItems: { type: 'string' } } };
    expect(toDraft7Tuples(schema)).toEqual(schema);
    expect(() => toDraft7Tuples({ anyOf: [{ type: 'object', unevaluatedProperties: false }] })).toThrow(
      '#/anyOf/0/unevaluatedProperties: not supported',
    );
  });
});
