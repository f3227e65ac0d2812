// The page side of the store of finished pages (page-store.ts), in the
// process that renders pages: apart from the store, which the export's own
// process loads, as it reads each page's model to take its digest.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pageDigest } from '../models/view-digests.ts';
import type { EarlierPages } from './site-input.ts';
import type { SiteReader } from './site-reader.ts';
import { pageDigestsBeside, readPageDigests, type PageDigests } from './page-store.ts';

/**
 * The page side of the store, in the process that renders pages (the kept
 * renderer, renderer-entry.mjs): which pages are kept from their
 * conversation's earlier render, and the record of every page's digest for
 * the next render. One per rendering process, on its site.
 */
export class EarlierPageRecords {
  /** The records started by this process, and the earlier ones read, by their files. */
  private readonly started = new Set<string>();
  private readonly earlierRead = new Map<string, PageDigests | undefined>();
  /** The digest of each page being rendered, recorded once it is written (rendered). */
  private readonly rendering = new Map<string, { readonly record: string; readonly code: string; readonly digest: string }>();

  constructor(private readonly site: SiteReader) {}

  /**
   * The folder holding the page `file` as its conversation's earlier render
   * wrote it, when its digest is the one that render recorded; undefined
   * when it must be rendered. Either way its digest is recorded for the next
   * render: a page kept at once, a page rendered once it is written
   * (rendered). A site with no selection (every conversation rendered,
   * nothing kept) records nothing and keeps nothing.
   */
  keptPage(file: string): string | undefined {
    const { selected, code } = this.site.selectionOf(file);
    if (code === undefined || selected.plan === '') return undefined;
    const { model, rows } = this.site.outline(file);
    const digest = pageDigest(model, file, code, rows);
    const earlier = selected.earlier !== undefined ? this.earlierFolder(selected.earlier, file, digest) : undefined;
    if (earlier !== undefined) this.record(pageDigestsBeside(selected.plan), code, { page: file, digest, kept: true });
    else this.rendering.set(file, { record: pageDigestsBeside(selected.plan), code, digest });
    return earlier;
  }

  /**
   * Records the digest of the page `file`, rendered as `bytes`, with the
   * SHA-256 of those bytes: the cache of finished pages and the manifest
   * take it rather than reading every page back once the site is rendered.
   */
  rendered(file: string, bytes: Uint8Array): void {
    const rendering = this.rendering.get(file);
    if (rendering === undefined) return;
    this.rendering.delete(file);
    this.record(rendering.record, rendering.code, { page: file, digest: rendering.digest, kept: false, sha256: crypto.createHash('sha256').update(bytes).digest('hex') });
  }

  private earlierFolder(earlier: EarlierPages, file: string, digest: string): string | undefined {
    if (!this.earlierRead.has(earlier.digests)) this.earlierRead.set(earlier.digests, readPageDigests(earlier.digests));
    if (this.earlierRead.get(earlier.digests)?.pages[file]?.digest !== digest) return undefined;
    try {
      return fs.statSync(path.join(earlier.files, file)).isFile() ? earlier.files : undefined;
    } catch {
      return undefined;
    }
  }

  // Each page's line is written as the page is done rather than all at the
  // end: a page of the conversation may be the last this process renders. A
  // render that stops half way leaves a record of the pages it did, which is
  // never read, as its entry is never made complete.
  private record(file: string, code: string, page: { page: string; digest: string; kept: boolean; sha256?: string }): void {
    const line = `${JSON.stringify(page)}\n`;
    if (this.started.has(file)) {
      fs.appendFileSync(file, line);
      return;
    }
    // Started afresh: what an interrupted render left there is not this one's.
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify({ code })}\n${line}`);
    this.started.add(file);
  }
}
