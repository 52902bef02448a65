export { createMemoryReadStore } from './memory/memory-store.ts';
