// Shared by the site's browser tests: an export built once per test file,
// a static server on 127.0.0.1 for it, and Debian's Chromium driven by
// playwright-core, with every request, console error, page error and dialog
// recorded so a test can assert that there were none.

import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { writeExport } from '../../src/export/export-folder.ts';
import { storedSessions } from '../../src/landing/session-folder.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { collectOnce, temporaryFolder } from '../helpers.ts';
import { EVIDENCE_FOLDER } from '../../src/site/models/evidence.ts';

export const CHROMIUM = '/usr/bin/chromium';

/** Collects `sources` (Claude Code projects trees), parses every session and exports it with its site. */
export async function exportWithSite(...sources: string[]): Promise<string> {
  const data = temporaryFolder({ forFile: true });
  for (const source of sources) collectOnce(source, data);
  for (const session of storedSessions(data)) parseSession(data, session);
  const out = path.join(temporaryFolder({ forFile: true }), 'export');
  await writeExport(data, out, storedSessions(data), { siteCache: path.join(data, '_site-cache') });
  return out;
}

/**
 * The largest HTML page under a site folder, but its evidence pages: they
 * hold whole landed rows, and a row longer than the page budget is never
 * cut (models/evidence.ts).
 */
export function largestPage(site: string): { file: string; bytes: number } {
  let largest = { file: '', bytes: 0 };
  for (const entry of fs.readdirSync(site, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.html') || entry.parentPath === path.join(site, EVIDENCE_FOLDER)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const bytes = fs.statSync(file).size;
    if (bytes > largest.bytes) largest = { file, bytes };
  }
  return largest;
}

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.png': 'image/png' };

/** Serves `root` read-only on 127.0.0.1; anything outside it is a 404. */
export async function serve(root: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const wanted = path.join(root, decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname));
    if (!wanted.startsWith(root + path.sep) || !fs.existsSync(wanted) || !fs.statSync(wanted).isFile()) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[path.extname(wanted)] ?? 'text/plain; charset=utf-8' });
    fs.createReadStream(wanted).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-component-update', '--disable-sync', '--no-first-run'] });
}

export interface Watched {
  readonly page: Page;
  readonly requests: string[];
  readonly errors: string[];
  readonly dialogs: string[];
}

/** A new page with JavaScript on or off, on a touch screen with no hover if `touch`, recording what it asks for and what goes wrong. */
export async function watchedPage(browser: Browser, options: { javaScript?: boolean; viewport?: { width: number; height: number }; touch?: boolean } = {}): Promise<Watched> {
  const context = await browser.newContext({ javaScriptEnabled: options.javaScript ?? true, viewport: options.viewport ?? { width: 1200, height: 900 }, ...(options.touch ? { hasTouch: true, isMobile: true } : {}) });
  const page = await context.newPage();
  const watched: Watched = { page, requests: [], errors: [], dialogs: [] };
  page.on('request', (request) => watched.requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error') watched.errors.push(message.text());
  });
  page.on('pageerror', (error) => watched.errors.push(error.message));
  page.on('dialog', (dialog) => {
    watched.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  return watched;
}

/** Types `query` into the search page and waits until its results are all in. */
export async function searchFor(page: Page, query: string): Promise<void> {
  await page.fill('#query', query);
  await page.waitForFunction(searchIsSettled, query, { timeout: 60_000 });
}

/** Waits until a search page opened with `?q=` shows all its results. */
export async function searchSettled(page: Page): Promise<void> {
  await page.waitForFunction(searchIsSettled, null, { timeout: 60_000 });
}

/**
 * Run in the page: whether the search page's status says its results are all
 * in (public/search.js), for the query `wanted` when one is given. A function,
 * not a string: the pages' content security policy forbids evaluating one.
 */
function searchIsSettled(wanted: string | null): boolean {
  const { location, document } = globalThis as unknown as { location: { search: string }; document: { getElementById(id: string): { textContent: string | null } | null } };
  return (wanted === null || new URLSearchParams(location.search).get('q') === wanted) && /matching step|Nothing matches/.test(document.getElementById('status')?.textContent ?? '');
}
