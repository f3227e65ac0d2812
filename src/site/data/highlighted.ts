// The highlight cache: shiki's output for one piece of code, on disk, named
// by the SHA-256 of its language and text. The export stage fills it before
// the build (build/highlight.ts), so branch pages that repeat a block, and a
// second export of the same conversations, highlight nothing again; the pages
// only read it. It lives outside the export: it is not evidence.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const CACHE_VARIABLE = 'SESSIONIZER_SITE_CACHE';

/** Above this, code is shown as plain escaped text: highlighting time and HTML grow with it. */
export const HIGHLIGHT_LIMIT = 24 * 1024;

export function highlightKey(language: string, code: string): string {
  return crypto.createHash('sha256').update(language).update('\0').update(code).digest('hex');
}

export function cacheFile(cache: string, key: string): string {
  return path.join(cache, key.slice(0, 2), `${key}.html`);
}

/** The cached HTML for a piece of code, or undefined: it is then shown plain. */
export function highlighted(language: string, code: string, cache = process.env[CACHE_VARIABLE]): string | undefined {
  if (cache === undefined || code.length > HIGHLIGHT_LIMIT) return undefined;
  try {
    return fs.readFileSync(cacheFile(cache, highlightKey(language, code)), 'utf8');
  } catch {
    return undefined;
  }
}
