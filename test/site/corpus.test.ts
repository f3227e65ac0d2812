// The site of the real public transcripts in ../shared/corpus, when it is
// present beside the checkout: the export verifies, no page passes the size
// budget (the largest sessions there have hundreds of talks), and the index
// and the largest conversation open from file:// with no console error and no
// request outside the export.

import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWhere, filesMissing, firstMissing, programMissing } from '../requirements.ts';
import { PAGE_BUDGET } from '../../src/site/models/page-files.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { CHROMIUM, exportWithSite, largestPage, launch, watchedPage } from './browser.ts';
import type { Browser } from 'playwright-core';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const corpus = path.resolve(repository, '..', 'shared', 'corpus');
const trees = [path.join(corpus, 'claude-code-log', 'test', 'test_data', 'real_projects'), path.join(corpus, 'spotter', 'test', 'fixtures')];
const missing = firstMissing(filesMissing(...trees), programMissing(CHROMIUM));

describeWhere(missing, 'the site of ../shared/corpus', () => {
  let out: string;
  let browser: Browser;
  beforeAll(async () => {
    out = await exportWithSite(...trees);
    browser = await launch();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('verifies, and keeps every page within the budget', async () => {
    expect((await verifyExport(out)).problems).toEqual([]);
    expect(largestPage(path.join(out, 'site')).bytes).toBeLessThanOrEqual(PAGE_BUDGET);
  });

  it('opens the index and the largest page from file:// with no error and no request outside the export', { timeout: 120_000 }, async () => {
    const base = pathToFileURL(out).href;
    const watched = await watchedPage(browser);
    await watched.page.goto(`${base}/site/index.html`);
    expect(await watched.page.locator('#conversations li.conversation').count()).toBeGreaterThan(40);
    await watched.page.click('#conversations li.conversation:first-child a.title');
    expect(await watched.page.locator('.talk').count()).toBeGreaterThan(0);
    await watched.page.goto(pathToFileURL(largestPage(path.join(out, 'site')).file).href);
    expect(await watched.page.locator('.step').count()).toBeGreaterThan(10);
    expect(watched.requests.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
    expect(watched.errors).toEqual([]);
    expect(watched.dialogs).toEqual([]);
  });
});
