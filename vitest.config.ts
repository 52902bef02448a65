import { configDefaults, defineConfig } from 'vitest/config';

const ROOTS = ['packages/*/src', 'services/*/src', 'scripts', 'test'];
/** The tiers that need Kafka, MongoDB and Redis: `*.int.test.ts` anywhere, and `test/e2e/`. */
const NEEDS_SERVERS = [...ROOTS.map((root) => `${root}/**/*.int.test.ts`), 'test/e2e/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'no-servers',
          include: ROOTS.map((root) => `${root}/**/*.test.ts`),
          exclude: [...configDefaults.exclude, ...NEEDS_SERVERS],
        },
      },
      {
        extends: true,
        test: {
          name: 'servers',
          include: NEEDS_SERVERS,
          // Runs only when a file of this project is in the run: chooses containers (Docker) or
          // the local servers, see test/support/test-infra.ts.
          globalSetup: ['test/support/global-infra.ts'],
        },
      },
    ],
  },
});
