import { writeFile } from 'node:fs/promises';
import { topicSchemaDocuments } from './topic-schemas.ts';

/** Writes docs/schemas/<topic>.json from the zod schemas the code itself parses messages with. */
for (const [file, doc] of Object.entries(topicSchemaDocuments())) {
  await writeFile(new URL(`../docs/schemas/${file}`, import.meta.url), `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`wrote docs/schemas/${file}`);
}
