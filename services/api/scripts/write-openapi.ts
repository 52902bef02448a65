import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { allRoutes, openApiJson } from '../src/index.ts';

/** Rewrites services/api/openapi.json from the routes' zod schemas (the drift test checks it). */
const file = fileURLToPath(new URL('../openapi.json', import.meta.url));
await writeFile(file, openApiJson(allRoutes()));
console.log(`wrote ${file}`);
