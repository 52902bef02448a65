import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildChain, startTestApi, type TestApi } from '../../testing/harness.ts';
import { allRoutes } from '../index.ts';

/**
 * /api/docs in a real browser: headless Chromium (the system's, CHROMIUM_PATH to choose another)
 * opens the page the API serves and must show every operation of the OpenAPI document the API
 * serves, with no console error, no failed request and no request to another origin.
 *
 * Without a browser the suite is skipped with a notice on a developer's machine; in CI (CI set, as
 * .ci/run runs, or REQUIRE_BROWSER=1) a missing browser is a failure: scripts/install-browser.sh
 * installs it there.
 */

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

function findBrowser(): string | null {
  const chosen = process.env['CHROMIUM_PATH'];
  if (chosen !== undefined && chosen !== '') return chosen;
  return CANDIDATES.find((path) => existsSync(path)) ?? null;
}

const required = (process.env['CI'] ?? '') !== '' || process.env['REQUIRE_BROWSER'] === '1';
const executablePath = findBrowser();
if (executablePath === null && !required) {
  console.warn(
    `\n*** SKIPPED: the /api/docs browser test: no Chromium at ${CANDIDATES.join(', ')} and CHROMIUM_PATH is not set ` +
      '(run `bash scripts/install-browser.sh`, or set CHROMIUM_PATH) ***\n',
  );
}

/** An operation as the document lists it, or as the page shows it. */
interface Operation {
  method: string;
  path: string;
  operationId: string;
}
const key = (op: Operation): string => `${op.method} ${op.path} ${op.operationId}`;

interface Document {
  paths: Record<string, Record<string, { operationId: string }>>;
}
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

function documented(doc: Document): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, operationId: op.operationId })),
  );
}

/**
 * Run in the page: each operation block Swagger UI rendered, as a reader sees it. (Text, not a
 * function: this project is typed without the DOM's library; the answer is decoded below.)
 */
const SHOWN_OPERATIONS = `[...document.querySelectorAll('#docs .opblock')].map((block) => {
  const path = block.querySelector('.opblock-summary-path');
  return {
    method: block.querySelector('.opblock-summary-method')?.textContent?.trim() ?? '',
    // Swagger UI breaks long paths with zero-width spaces.
    path: (path?.textContent ?? '').replace(/\\u200b/g, '').trim(),
    dataPath: path?.getAttribute('data-path') ?? '',
    operationId: block.querySelector('.opblock-summary-operation-id')?.textContent?.trim() ?? '',
    visible: block.checkVisibility() && (path?.checkVisibility() ?? false),
  };
})`;
const ShownOperations = z.array(
  z.object({
    method: z.string(),
    path: z.string(),
    dataPath: z.string(),
    operationId: z.string(),
    visible: z.boolean(),
  }),
);

/** The API's host as the page sees it: a name, not loopback (see the browser's arguments). */
const HOST = 'explorer.test';

/** Generous: the first render parses a 1.7 MB script on a busy 2-core machine. */
const RENDER_DEADLINE_MS = 60_000;

describe.skipIf(executablePath === null && !required)('/api/docs in a headless browser', () => {
  let api: TestApi;
  let browser: Browser;
  beforeAll(async () => {
    if (executablePath === null) {
      throw new Error(
        `no Chromium at ${CANDIDATES.join(', ')} and CHROMIUM_PATH is not set: this run requires the browser test (run scripts/install-browser.sh)`,
      );
    }
    api = await startTestApi({ fixture: buildChain(5) });
    browser = await puppeteer.launch({
      executablePath,
      headless: true,
      args: [
        // Root in CI's containers has no user namespace for Chromium's sandbox.
        '--no-sandbox',
        '--disable-dev-shm-usage',
        '--disable-gpu',
        // The page is opened as a reader would open a public host (Swagger UI calls out to its online
        // validator for any host but localhost); every other name resolves nowhere, so nothing leaves.
        `--host-resolver-rules=MAP ${HOST} 127.0.0.1, MAP * ~NOTFOUND`,
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('shows every operation of the served document, loading only from its own origin, without errors', async () => {
    const served = await api.get<Document>('/api/openapi.json');
    expect(served.status).toBe(200);
    const expected = documented(served.body);
    // The document lists every route the API serves, so the page must show them all.
    const routed = allRoutes().map((route) => ({ method: 'GET', path: route.path, operationId: route.operationId }));
    expect(expected.map(key).sort()).toEqual(routed.map(key).sort());

    const page = await browser.newPage();
    const base = new URL(api.url);
    base.hostname = HOST;
    const origin = base.origin;
    const requested: string[] = [];
    const failed: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => void requested.push(request.url()));
    page.on('requestfailed', (request) => void failed.push(`${request.url()}: ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.url()}: ${response.status()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => void errors.push(String(error)));

    try {
      const answer = await page.goto(`${origin}/api/docs`, { waitUntil: 'load', timeout: RENDER_DEADLINE_MS });
      expect(answer?.status()).toBe(200);
      // Swagger UI fetches the document, then renders all its tags at once.
      await page.waitForSelector('#docs .opblock', { timeout: RENDER_DEADLINE_MS });
      await page.waitForNetworkIdle({ idleTime: 500, timeout: RENDER_DEADLINE_MS });

      const shown = ShownOperations.parse(await page.evaluate(SHOWN_OPERATIONS));
      expect(shown.filter((op) => !op.visible).map(key), 'operations rendered but hidden').toEqual([]);
      expect(shown.filter((op) => op.dataPath !== op.path).map(key), 'paths shown other than listed').toEqual([]);
      expect(shown.map(key).sort()).toEqual(expected.map(key).sort());

      const outside = requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
      expect(outside, 'requests to another origin').toEqual([]);
      expect(failed, 'failed requests').toEqual([]);
      expect(errors, 'console errors').toEqual([]);
      // It did load its renderer and the document from here.
      expect(requested).toEqual(
        expect.arrayContaining([
          `${origin}/api/docs/assets/swagger-ui-bundle.js`,
          `${origin}/api/docs/assets/swagger-ui.css`,
          `${origin}/api/openapi.json`,
        ]),
      );
      if (process.env['DOCS_SCREENSHOT'])
        await page.screenshot({ path: process.env['DOCS_SCREENSHOT'], fullPage: true });
    } finally {
      await page.close();
    }
  }, 180_000);
});
