// Writes the evidence pages of a conversation (models/evidence.ts): every
// landed file of its session, a page at a time, as HTML made here rather
// than by Astro. An evidence page has no part that the conversation pages
// render (no markdown, no highlighting, no tool card): it is a head, a few
// links, an anchor a row and the rows as landed, compressed, which the
// site's script shows (public/evidence.js). Written directly, a page
// streams from its landed file's lines in the export's own process, without
// a route, a plan or a child of the site stage, which is the export's
// slowest step. What it shares with the Astro pages is their
// content security policy (models/content-security.ts), style sheet and top
// navigation (models/site-navigation.ts).

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { landedFilesOfSession } from '../../landing/session-state.ts';
import { CONTENT_SECURITY_POLICY } from '../models/content-security.ts';
import { escapeAttribute, escapeText, evidencePagesOf, EVIDENCE_FOLDER, rowAnchor, type EvidencePageView } from '../models/evidence.ts';
import { conversationPage } from '../models/page-files.ts';
import { SITE_NAVIGATION } from '../models/site-navigation.ts';
import { digestOfFile } from '../../files/digest.ts';
import { linkOrCopy, linkOrCopyNamedByBytes } from './link-or-copy.ts';
import { writeImageFiles, type WrittenImage } from './image-files.ts';
import { IMAGE_FOLDER } from '../models/images.ts';
import { listFolder } from '../../files/folders.ts';
import { WORKER_OLD_GENERATION_MB, workerModule, workOnCores } from '../../cores/work-on-cores.ts';
import { zstd } from '../../files/zstd.ts';
import { licenceIn, packageFolder } from './package-files.ts';

/** From an evidence page to the site's root, and to the export's. */
const ROOT = '../';
const EXPORT_ROOT = '../../';

/** The style sheet of the evidence pages alone, after the site's. */
const EVIDENCE_STYLE = 'evidence.css';

/** The site's file of the zstd decoder that shows an evidence page's rows (fzstd, zstdDecoderScript). */
export const ZSTD_DECODER = 'fzstd.js';

/** The scripts an evidence page loads, in order: the decoder, then the one that shows its rows (public/evidence.js). */
const ROW_SCRIPTS = [ZSTD_DECODER, 'evidence.js'];

/**
 * The zstd decoder's script as the site holds it: fzstd's browser build,
 * which sets the global `fzstd`, after its licence, which asks to go with
 * every copy.
 */
export function zstdDecoderScript(): string {
  const library = packageFolder('fzstd');
  if (library === undefined) throw new Error('the package fzstd, the evidence pages\' zstd decoder, is not installed');
  return `/*!\n${licenceIn(library)}\n*/\n${fs.readFileSync(path.join(library, 'umd', 'index.js'), 'utf8')}`;
}

/**
 * The evidence worker's young generation, in megabytes: it runs in the
 * export's own process beside the calling thread's heap, and a young
 * generation grown to V8's largest stayed resident beside it, the export
 * process's second peak (as for the parse workers, parse/parallel.ts).
 */
const EVIDENCE_WORKER_YOUNG_GENERATION_MB = 12;

/** A page written, or kept from the conversation's earlier render. */
export interface WrittenEvidence {
  /** From the site root. */
  readonly file: string;
  /** Of the site's code and the page's model, rows included (evidencePageDigest). */
  readonly digest: string;
  /**
   * The SHA-256 of the page's bytes, taken from them as they are written,
   * for the manifest and the cache of finished pages (page-store.ts), which
   * would otherwise read every evidence page back once the site is rendered,
   * on one core while the other has nothing left to do.
   */
  readonly sha256: string;
  readonly kept: boolean;
}

/** What writeEvidence records beside a conversation's plan. */
interface EvidenceRecord {
  /** The site's code the pages were written with (kept-renderer.ts, siteCode). */
  readonly code: string;
  readonly pages: WrittenEvidence[];
  /** The conversation's image files (image-files.ts), written with its evidence pages. */
  readonly images: WrittenImage[];
}

/**
 * A conversation rendered, for writeEvidence: where its plan is saved, and
 * the pages its earlier render left in the cache of finished pages, when
 * site.ts offers them (generator/site-input.ts, EarlierPages: the folder of their
 * files, and the page digests recorded beside the earlier plan).
 */
export interface EvidenceOf {
  readonly id: string;
  readonly plan: string;
  readonly earlier?: { readonly files: string; readonly digests: string };
}

/**
 * Writes the evidence pages of each conversation rendered, and records
 * their files beside its plan (evidenceBeside), where the cache of
 * finished pages (site.ts) finds them with its pages: they are a function
 * of the same bundle files, and are kept and placed with them.
 *
 * A conversation rendered again because it grew keeps the pages of its
 * earlier render whose digest is the one recorded then, linked from the
 * cache rather than written: a landed file grows at its end, and its pages
 * but the last keep their rows (models/evidence.ts).
 */
export function writeEvidence(bundle: string, out: string, conversations: readonly EvidenceOf[], code: string, maker = new PageMaker()): void {
  for (const { id, plan, earlier } of conversations) {
    fs.mkdirSync(path.dirname(plan), { recursive: true });
    const before = earlier !== undefined ? readRecord(recordBeside(earlierPlan(earlier.digests))) : undefined;
    const known = new Map(before?.code === code ? before.pages.map(({ file, digest }) => [file, digest] as const) : []);
    const keptFrom = (file: string, digest: string): string | undefined => (earlier !== undefined && known.get(file) === digest && fs.existsSync(path.join(earlier.files, file)) ? earlier.files : undefined);
    const record: EvidenceRecord = { code, pages: writeEvidencePages(bundle, out, id, code, keptFrom, maker), images: writeImageFiles(bundle, out, id) };
    fs.writeFileSync(recordBeside(plan), `${JSON.stringify(record)}\n`);
  }
}

/** What the evidence worker is handed beside the conversations: where to read and where to write. */
export interface EvidenceTask {
  readonly bundle: string;
  readonly out: string;
  readonly code: string;
}

/**
 * Writes the evidence pages of each conversation taken (writeEvidence) and
 * reports it: the evidence worker's work, and the calling thread's for any
 * that no worker took, as when the worker failed before it took one.
 */
export function writeEvidenceTaken(taken: Iterable<EvidenceOf>, { bundle, out, code }: EvidenceTask, report: (id: string) => void): void {
  const maker = new PageMaker();
  for (const conversation of taken) {
    writeEvidence(bundle, out, [conversation], code, maker);
    report(conversation.id);
  }
}

/**
 * The most landed bytes whose evidence pages are written on the calling
 * thread rather than on a worker thread: a worker costs its start and the
 * loading of its modules, which the few pages of a conversation that grew
 * do not repay, and the calling thread only waits for the site's children
 * meanwhile. More is left to a worker, so that the calling thread stays
 * free to take the children's messages and output.
 */
const MOST_BYTES_WRITTEN_HERE = 4 << 20;

/** Whether the landed files of these conversations hold more than `limit` bytes. */
function landedBytesPass(bundle: string, conversations: readonly EvidenceOf[], limit: number): boolean {
  let bytes = 0;
  for (const { id } of conversations) {
    for (const landed of landedFilesOfSession(bundle, id)) {
      bytes += fs.statSync(landed.path).size;
      if (bytes > limit) return true;
    }
  }
  return false;
}

/**
 * Writes the evidence pages of `conversations` (writeEvidence) into the
 * folder `staging`, on a thread of its own, or on the calling thread when
 * they are few (MOST_BYTES_WRITTEN_HERE): they are a function of the
 * bundle alone, and so are written while the site's children render the
 * conversations' pages, rather than after them. Resolves once every one is
 * written; placeEvidence then puts them into the site. `mostBytesHere` is
 * for tests.
 */
export async function writeEvidenceOnThread(bundle: string, staging: string, conversations: readonly EvidenceOf[], code: string, mostBytesHere = MOST_BYTES_WRITTEN_HERE): Promise<void> {
  if (conversations.length === 0) return;
  if (!landedBytesPass(bundle, conversations, mostBytesHere)) {
    // Once the caller has started its children and waits for them.
    await new Promise((resolve) => setImmediate(resolve));
    writeEvidence(bundle, staging, conversations, code);
    return;
  }
  const failures: string[] = [];
  const task: EvidenceTask = { bundle, out: staging, code };
  await workOnCores<EvidenceOf, EvidenceTask, string>({
    items: conversations,
    threads: 1,
    workersOnly: true,
    name: 'the evidence worker',
    worker: workerModule('evidence-worker', new URL('./evidence-worker.ts', import.meta.url)),
    task,
    here: (taken, report) => writeEvidenceTaken(taken, task, report),
    itemKey: ({ id }) => id,
    outcomeKey: (id) => id,
    lost: ({ id }, why) => (failures.push(`${id}: ${why}`), id),
    keepOutcomes: false,
    youngGenerationMb: EVIDENCE_WORKER_YOUNG_GENERATION_MB,
    oldGenerationMb: WORKER_OLD_GENERATION_MB,
  });
  if (failures.length > 0) throw new Error(`the evidence pages of ${failures.length} conversation${failures.length === 1 ? '' : 's'} were not written: ${failures.join('; ')}`);
}

/**
 * Puts the evidence pages and the image files writeEvidenceOnThread wrote
 * into `staging` into the site folder `out`: the staging folder holds those
 * files alone, so they are listed there rather than read from each
 * conversation's record. An image file a finished conversation placed
 * already is the same bytes, and stays.
 */
export function placeEvidence(staging: string, out: string): void {
  fs.mkdirSync(path.join(out, EVIDENCE_FOLDER), { recursive: true });
  for (const name of listFolder(path.join(staging, EVIDENCE_FOLDER))) linkOrCopy(staging, out, `${EVIDENCE_FOLDER}/${name}`);
  for (const name of listFolder(path.join(staging, IMAGE_FOLDER))) linkOrCopyNamedByBytes(staging, out, `${IMAGE_FOLDER}/${name}`);
}

/**
 * The evidence pages and the image files of the conversation whose plan is
 * saved at `plan`, as writeEvidence recorded them: each page's file from the
 * site root, the SHA-256 of its bytes, and whether it was kept from the
 * earlier render; each image's file and SHA-256.
 */
export function evidenceBeside(plan: string): { readonly pages: readonly WrittenEvidence[]; readonly images: readonly WrittenImage[] } {
  const record = readRecord(recordBeside(plan));
  if (record === undefined) throw new Error(`${recordBeside(plan)}: the record of the conversation's evidence pages is missing or cannot be read`);
  return { pages: record.pages, images: record.images ?? [] };
}

function recordBeside(plan: string): string {
  return plan.replace(/\.json$/, '.evidence.json');
}

/** The plan beside which the page digests `digests` are recorded (page-store.ts, pageDigestsBeside). */
function earlierPlan(digests: string): string {
  return digests.replace(/\.pages\.jsonl$/, '.json');
}

function readRecord(file: string): EvidenceRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as EvidenceRecord;
  } catch {
    return undefined;
  }
}

/**
 * Writes the evidence pages of the conversation `conversation` of the
 * bundle under the site folder `out`, but those `keptFrom` names a folder
 * holding already, which are linked from there; returns them all. Each
 * page links back to the conversation's first page (models/plan.ts,
 * conversationPage).
 */
export function writeEvidencePages(bundle: string, out: string, conversation: string, code: string, keptFrom: (file: string, digest: string) => string | undefined = () => undefined, maker = new PageMaker()): WrittenEvidence[] {
  const written: WrittenEvidence[] = [];
  fs.mkdirSync(path.join(out, EVIDENCE_FOLDER), { recursive: true });
  for (const landed of landedFilesOfSession(bundle, conversation)) {
    for (const page of evidencePagesOf(conversation, landed.seq, `${conversation}/${landed.relative}`, landed.path)) {
      const digest = evidencePageDigest(page, code);
      const from = keptFrom(page.file, digest);
      if (from !== undefined) {
        // Read again rather than taken from the earlier record: the manifest
        // states the bytes the site holds, whatever befell the cache's copy.
        linkOrCopy(from, out, page.file);
        written.push({ file: page.file, digest, sha256: digestOfFile(path.join(out, page.file)), kept: true });
      } else {
        const bytes = evidencePageBytes(page, maker);
        fs.writeFileSync(path.join(out, page.file), bytes);
        written.push({ file: page.file, digest, sha256: crypto.createHash('sha256').update(bytes).digest('hex'), kept: false });
      }
    }
  }
  return written;
}

/**
 * What an evidence page's bytes are a function of: the site's code, the
 * page's model besides its rows, and its rows, which the number of the
 * first and the landed bytes read for them determine (a redacted bundle's
 * bytes differ from a plain one's wherever a secret was taken out).
 */
export function evidencePageDigest(page: EvidencePageView, code: string): string {
  const { rows, landedBytes, ...rest } = page;
  return crypto
    .createHash('sha256')
    .update(`${code}\n${JSON.stringify(rest)}\n${rows[0]?.row ?? 0}\n`)
    .update(landedBytes)
    .digest('hex');
}

/**
 * The zstd level of an evidence page's rows: of the levels measured on the
 * real corpus (docs/site.md, "Evidence pages"), the last before a byte
 * saved costs far more time.
 */
const ROWS_LEVEL = 3;

/**
 * What evidence pages are made with, page after page and conversation after
 * conversation: one zstd context, and one buffer for the compressed rows and
 * one for the page, each grown as a page needs. A context holds megabytes of
 * native memory, freed only when V8 collects its object, which came seldom:
 * a context for each conversation took the evidence pages of a generated
 * 100 MB corpus (194 conversations) to 240 MB of the process, against 123 MB
 * with one.
 */
export class PageMaker {
  private readonly context = new zstd.CCtx();
  private compressed = Buffer.alloc(0);
  private page = Buffer.alloc(0);

  /** The bytes as one zstd frame, which states their size; valid until the next call. */
  compress(bytes: Buffer): Buffer {
    const bound = zstd.compressBound(bytes.length);
    if (this.compressed.length < bound) this.compressed = Buffer.allocUnsafe(Math.max(bound, this.compressed.length * 2));
    return this.compressed.subarray(0, this.context.compress(this.compressed, bytes, ROWS_LEVEL));
  }

  /** A buffer of `length` bytes for a page, valid until the next call. */
  pageOf(length: number): Buffer {
    if (this.page.length < length) this.page = Buffer.allocUnsafe(Math.max(length, this.page.length * 2));
    return this.page.subarray(0, length);
  }
}

/**
 * The HTML of an evidence page. Its rows are held as landed, compressed with
 * zstd and written in base64, whose alphabet holds no character that HTML
 * reads as markup: no byte of a transcript can end the element that holds
 * it. The site's scripts (the zstd decoder, ROW_SCRIPTS) show them
 * pretty-printed as the page opens, each row's text put in as text, never
 * as markup. Without JavaScript, each row has an anchor that says which line
 * of the landed file it is, shown when a link names it (evidence.css), and
 * the head links the landed file. Every text of the page's own is escaped.
 * Made in `maker`'s buffer, and valid until it makes the next page.
 */
export function evidencePageBytes(page: EvidencePageView, maker = new PageMaker()): Buffer {
  const first = page.rows[0]?.row ?? 0;
  const last = page.rows.at(-1)?.row ?? 0;
  const range = first === last ? `row ${first}` : `rows ${first}–${last}`;
  const lines = first === last ? `line ${first + 1}` : `lines ${first + 1}–${last + 1}`;
  const paged = page.previous !== undefined || page.next !== undefined;
  const title = `Evidence {seq ${page.seq}}, ${range}${paged ? ` (page ${page.number})` : ''} · conversation ${page.conversation.slice(0, 8)} · Sessionizer`;
  const link = (href: string, text: string, attributes = ''): string => `<a href="${escapeAttribute(href)}"${attributes}>${escapeText(text)}</a>`;
  const { kind, stream, src, derived } = page.header;
  const facts = [
    `<span><code>${escapeText(page.landed)}</code></span>`,
    ...(kind !== undefined ? [`<span>${escapeText(kind)}${stream !== undefined ? `, stream ${escapeText(stream ?? 'none')}` : ''}</span>`] : []),
    ...(src !== undefined ? [`<span>from <code>${escapeText(src)}</code></span>`] : []),
    ...(derived === 'redacted' ? ['<span>a redacted copy: secrets taken out</span>'] : []),
  ];
  const pages = paged
    ? `<nav class="pages" aria-label="pages of this landed file">${page.previous !== undefined ? link(`${ROOT}${page.previous}`, 'previous page', ' rel="prev"') : ''}<strong>page ${page.number}</strong>${page.next !== undefined ? link(`${ROOT}${page.next}`, 'next page', ' rel="next"') : ''}</nav>`
    : '';
  const anchors = page.rows.map(({ row }) => `<li id="${rowAnchor(row)}">line ${row + 1}</li>\n`).join('');
  const head = [
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(CONTENT_SECURITY_POLICY)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><link rel="icon" href="data:,">',
    `<title>${escapeText(title)}</title>`,
    `<link rel="stylesheet" href="${ROOT}site.css"><link rel="stylesheet" href="${ROOT}${EVIDENCE_STYLE}"></head>\n<body>`,
    `<nav class="top" aria-label="site">${SITE_NAVIGATION.map(({ page: file, text }) => link(`${ROOT}${file}`, text)).join(' ')}</nav>\n<main class="evidence">`,
    `<header class="page-head"><p class="crumbs">${link(`${ROOT}${conversationPage(page.conversation)}`, '← back to the conversation')}</p>`,
    `<h1>Landed records: {seq ${page.seq}}, ${range}</h1>`,
    `<p class="facts">${facts.join('')}</p>`,
    `<p class="raw">${link(`${EXPORT_ROOT}bundle/${page.landed.split('/').map(encodeURIComponent).join('/')}`, 'The landed file as it is in the bundle (JSON Lines)')}: these rows are its ${lines}.</p>`,
    pages,
    '</header>\n',
    '<p class="no-script">The rows are held in this page compressed, and the site’s script shows them pretty-printed. Without JavaScript, the row a link names is shown here by its line in the landed file linked above.</p>\n',
    `<ol class="row-anchors" data-seq="${page.seq}">\n${anchors}</ol>\n`,
    '<div class="evidence-data" hidden>',
  ].join('');
  const tail = [`</div>\n${pages}</main>\n`, ROW_SCRIPTS.map((script) => `<script src="${ROOT}${script}"></script>`).join(''), '\n</body>\n</html>\n'].join('');
  // Most of the page is the base64, ASCII, written as it is rather than joined to the page's other text and encoded with it.
  const rows = maker.compress(page.landedBytes).toString('base64');
  const headBytes = Buffer.byteLength(head);
  const bytes = maker.pageOf(headBytes + rows.length + Buffer.byteLength(tail));
  bytes.write(head, 0, 'utf8');
  bytes.write(rows, headBytes, 'latin1');
  bytes.write(tail, headBytes + rows.length, 'utf8');
  return bytes;
}
