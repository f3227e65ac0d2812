// The export folder: the bundle (the storage layout of the chosen
// conversations) and, beside it, the manifest that proves every byte.
//
//   <out>/bundle/<session>/streams/…/*.jsonl, *.sd     landed evidence and its normalised form
//   <out>/bundle/<session>/runs/…
//   <out>/bundle/_conversations/<id>/rounds/*.sf        the round chain
//   <out>/bundle/_conversations/<id>/branches/, labels/ explicit branches and labels
//   <out>/site/index.html, c/, b/, s/ …                  the static site, built from <out>/bundle alone
//   <out>/manifest.json, manifest-sha256.txt, root-digest.txt
//
// Only what re-verifies and re-derives the conversation travels: cursors,
// locks, the derived index and the mutable state files stay behind (they name
// source paths and wall-clock times and prove nothing). So the same evidence
// exported twice gives the same files.
//
// The export is written beside the target and renamed into place at the end,
// so an interruption leaves the earlier export untouched.

import fs from 'node:fs';
import path from 'node:path';
import { conversationFolder } from '../session-flow/chain.ts';
import { landedFilesOfSession } from '../landing/session-state.ts';
import { sessionDataName } from '../landing/layout.ts';
import { listFolder } from '../landing/session-state.ts';
import type { SiteResult } from '../site/build/site.ts';
import { unsafePath, writeManifest } from './manifest.ts';

export const BUNDLE = 'bundle';

export interface ExportOptions {
  /** Build the static site into <out>/site; on by default. */
  readonly site?: boolean;
  /** Where highlighted code is cached between exports; by default <data>/_site-cache, outside every export. */
  readonly siteCache?: string;
}

export interface ExportResult {
  readonly out: string;
  readonly conversations: string[];
  readonly rootDigest: string;
  readonly files: number;
  readonly bytes: number;
  readonly site?: SiteResult;
}

export async function writeExport(data: string, out: string, conversations: readonly string[], options: ExportOptions = {}): Promise<ExportResult> {
  for (const conversation of conversations) {
    if (conversation.includes('/') || unsafePath(conversation)) throw new Error(`conversation ${JSON.stringify(conversation)}: not a name a storage zone can hold`);
  }
  const partial = `${out}.partial-${process.pid}`;
  fs.rmSync(partial, { recursive: true, force: true });
  const bundle = path.join(partial, BUNDLE);
  try {
    for (const conversation of conversations) {
      // The conversation is its session unless one was supplied; the session
      // a chain was built from is in its rounds.
      const session = conversation;
      for (const landed of landedFilesOfSession(data, session)) {
        copy(landed.path, path.join(bundle, session, landed.relative));
        const sd = path.join(path.dirname(landed.path), sessionDataName(path.basename(landed.path)));
        if (fs.existsSync(sd)) copy(sd, path.join(bundle, session, path.dirname(landed.relative), path.basename(sd)));
      }
      const chain = conversationFolder(data, conversation);
      for (const part of ['rounds', 'branches']) {
        for (const name of listFolder(path.join(chain, part))) copy(path.join(chain, part, name), path.join(bundle, '_conversations', conversation, part, name));
      }
      for (const branch of listFolder(path.join(chain, 'labels'))) {
        for (const name of listFolder(path.join(chain, 'labels', branch))) copy(path.join(chain, 'labels', branch, name), path.join(bundle, '_conversations', conversation, 'labels', branch, name));
      }
    }
    fs.mkdirSync(bundle, { recursive: true });
    // The site is a pure function of the bundle: it reads nothing else, and
    // it is written before the manifest so that every page is covered.
    // Loaded here, not at the top: Astro and shiki would otherwise load with every command.
    const site = options.site === false ? undefined : await (await import('../site/build/site.ts')).buildSite(bundle, path.join(partial, 'site'), options.siteCache ?? path.join(data, '_site-cache'));
    const manifest = writeManifest(partial);
    // Swap in the new export; the earlier one goes only once the new one is whole.
    const previous = `${out}.previous-${process.pid}`;
    if (fs.existsSync(out)) fs.renameSync(out, previous);
    fs.renameSync(partial, out);
    fs.rmSync(previous, { recursive: true, force: true });
    return { out, conversations: [...conversations], ...manifest, ...(site ? { site } : {}) };
  } catch (error) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

function copy(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
}
