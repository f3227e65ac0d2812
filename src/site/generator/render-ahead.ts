// Rendering ahead: the pages of the one conversation that changed, rendered
// by the waiting renderer child (kept-renderer.ts) while the export writes
// its bundle, in the child's own process.
//
// Once an export has parsed, the storage zone holds every file the bundle
// will hold of each conversation (bundle/conversation-files.ts), and the
// waiting child is idle until the site step, for as long as the bundle and
// its digests take. After one conversation changed, rendering its pages is
// most of what the site step waits for. So the export tells the child which
// conversation changed, once it has parsed it, and the child renders that
// conversation's pages from the storage zone into a folder of its own.
//
// The site is a function of the bundle alone (DESIGN.md), so the pages
// rendered ahead are used only for a conversation whose bundle files are,
// byte for byte, the files they were rendered from. The child takes the
// digest over the conversation's files (conversationInput) before it
// renders, with each file's stamp (files/file-stamp.ts), and keeps the
// pages only when every stamp is the same after: the data folder is locked
// by the export, its files are written once, and nothing writes them after
// the parse, so this only guards against what should not happen. The digest is part of the key of
// the conversation's entry in the store of finished pages (page-store.ts),
// and so of the path of its plan; the site step names the entry by the
// digest of the bundle's own files. So a site input that selects the
// conversation with the same plan selects the same bytes, and any other
// input renders the conversation from the bundle as if nothing had been
// rendered ahead.
//
// What the render saves beside the plan (the plan, the search script, the
// page digests) is saved where the site step's render would save it. A
// render ahead that is not used leaves it in an entry with no `complete`,
// which no build takes as finished, and which the store removes (PageStore,
// keepRendered).

import fs from 'node:fs';
import path from 'node:path';
import { conversationFiles, conversationInput, exportPathOf } from '../../bundle/conversation-files.ts';
import { digestOfFile } from '../../files/digest.ts';
import { compareStamps, stampOf } from '../../files/file-stamp.ts';
import { removeWhatEndedProcessesLeft } from '../../files/process.ts';
import type { ReadAhead } from '../data/read-ahead.ts';
import type { SiteInput } from '../data/site-input.ts';
import { SiteReader } from '../data/site-reader.ts';
import type { CodeHighlighter } from '../data/site.ts';
import { EarlierPageRecords } from './earlier-page-records.ts';
import { linkOrCopy } from './link-or-copy.ts';
import { PageStore } from './page-store.ts';

/** What the export asks a waiting child to render ahead. */
export interface AheadRequest {
  /** The storage zone, once the conversation is parsed. */
  readonly data: string;
  readonly conversation: string;
  /** The site's code (kept-renderer.ts, siteCode), which the key of the conversation's entry takes in. */
  readonly code: string;
}

/** Pages rendered ahead: the plan they were planned with, saved in the store, and the folder holding them. */
export interface RenderedAhead {
  readonly plan: string;
  readonly folder: string;
  readonly pages: readonly string[];
}

/** Writes the page `file` of `site` under `output`, or places it from its conversation's earlier render (renderer-entry.mjs). */
export type PageWriter = (site: SiteReader, records: EarlierPageRecords, file: string, output: string) => Promise<void>;

/** The folders of pages rendered ahead in a site cache, each named by the process that rendered it. */
const AHEAD_FOLDER = /^ahead-(\d+)$/;

/**
 * Renders the pages of `request.conversation` from the storage zone, with
 * the site cache `cache`, into a folder of the cache; none when its pages
 * are finished in the store already, or its files changed meanwhile, or the
 * render failed: the site step then renders it, and says what is wrong.
 */
export async function renderAhead(request: AheadRequest, cache: string, highlighter: () => Promise<CodeHighlighter>, readAhead: ReadAhead, write: PageWriter): Promise<RenderedAhead | undefined> {
  // What a child that was stopped, or crashed, left.
  removeWhatEndedProcessesLeft(cache, (name) => AHEAD_FOLDER.exec(name)?.[1]);
  const folder = path.join(cache, `ahead-${process.pid}`);
  try {
    const { input, unchanged } = inputOf(request);
    const store = new PageStore(cache, request.code);
    const finished = store.find(new Map([[request.conversation, input]]));
    const entry = finished[0]!;
    if (!entry.render) return undefined;
    const earlier = store.earlierPages(finished).get(request.conversation);
    const selected = { id: request.conversation, render: true, plan: entry.plan, ...(earlier !== undefined ? { earlier } : {}) };
    const site = new SiteReader({ bundle: request.data, cache, selection: { conversations: [selected], code: request.code } }, highlighter, readAhead);
    const records = new EarlierPageRecords(site);
    const pages: string[] = [];
    try {
      for await (const file of site.pagesAsPlanned()) {
        await write(site, records, file, folder);
        pages.push(file);
      }
    } finally {
      site.close();
    }
    if (!unchanged()) throw new Error('the conversation changed while it was rendered');
    return { plan: entry.plan, folder, pages };
  } catch {
    fs.rmSync(folder, { recursive: true, force: true });
    return undefined;
  }
}

/**
 * The site input the site step gave, with the conversation rendered ahead
 * no longer to render and its pages placed under `output`, when the input
 * selects it by the plan it was rendered with, and by
 * this process; otherwise the input as it was. Says how many pages it
 * placed. The folder of the pages rendered ahead is removed either way.
 */
export function takeRenderedAhead(ahead: RenderedAhead | undefined, input: SiteInput, output: string): { input: SiteInput; placed: number } {
  if (ahead === undefined) return { input, placed: 0 };
  try {
    const selection = input.selection;
    const taken = selection?.conversations.find(({ plan, render, renderedBy }) => render && plan === ahead.plan && renderedBy === undefined);
    if (selection === undefined || taken === undefined) return { input, placed: 0 };
    for (const page of ahead.pages) linkOrCopy(ahead.folder, output, page);
    return { input: { ...input, selection: { ...selection, conversations: selection.conversations.map((selected) => (selected === taken ? { ...selected, render: false } : selected)) } }, placed: ahead.pages.length };
  } finally {
    fs.rmSync(ahead.folder, { recursive: true, force: true });
  }
}

/**
 * The digest of the conversation's files as the storage zone holds them now
 * (bundle/conversation-files.ts), and whether they are the same files, by
 * their stamps and their names, when asked later.
 */
function inputOf({ data, conversation }: AheadRequest): { input: string; unchanged: () => boolean } {
  const files = conversationFiles(data, conversation).map(({ source, relative }) => ({ source, file: exportPathOf(relative), stamp: stampOf(source), sha256: digestOfFile(source) }));
  const names = (listed: readonly { source: string }[]): string => listed.map(({ source }) => source).join('\n');
  return {
    input: conversationInput(files),
    unchanged: () => names(conversationFiles(data, conversation)) === names(files) && files.every(({ source, stamp }) => stamp !== undefined && compareStamps(stampOf(source), stamp) === 'same'),
  };
}
