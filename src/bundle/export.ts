// The export folder: the bundle (the storage layout of the chosen
// conversations) and, beside it, the manifest that proves every byte.
//
//   <out>/bundle/<session>/streams/…/*.jsonl, *.sd     landed evidence and its normalised form
//   <out>/bundle/<session>/runs/…
//   <out>/bundle/_conversations/<id>/rounds/*.sf        the round chain
//   <out>/bundle/_conversations/<id>/branches/, labels/ explicit branches and labels
//   <out>/manifest.json, manifest-sha256.txt, root-digest.txt
//
// Only what re-verifies and re-derives the conversation travels: cursors,
// locks, the derived index and the mutable state files stay behind (they name
// source paths and wall-clock times and prove nothing). So the same evidence
// exported twice gives the same files.
//
// The export is written beside the target and renamed into place at the end,
// so an interruption leaves the earlier export untouched. Files that did not
// change since the previous export into the same folder are hard links to it,
// with their digests taken from it (reuse.ts).

import fs from 'node:fs';
import path from 'node:path';
import { conversationFolder } from '../session-flow/chain.ts';
import { landedFilesOfSession } from '../landing/session-state.ts';
import { sessionDataName } from '../landing/layout.ts';
import { listFolder } from '../landing/session-state.ts';
import { isRunning } from '../landing/process.ts';
import { unsafePath, writeManifest } from './manifest.ts';
import { ExportReuse } from './reuse.ts';
import { UNOBSERVED, type StepObserver } from './steps.ts';

export const BUNDLE = 'bundle';

export interface ExportResult {
  readonly out: string;
  readonly conversations: string[];
  readonly rootDigest: string;
  readonly files: number;
  readonly bytes: number;
  /** Files linked from the previous export unchanged, and files copied from the storage zone. */
  readonly reused: number;
  readonly copied: number;
}

export function writeExport(data: string, out: string, conversations: readonly string[], observer: StepObserver = UNOBSERVED): ExportResult {
  for (const conversation of conversations) {
    if (conversation.includes('/') || unsafePath(conversation)) throw new Error(`conversation ${JSON.stringify(conversation)}: not a name a storage zone can hold`);
  }
  recoverInterruptedExports(out);
  const partial = partialFolder(out);
  fs.rmSync(partial, { recursive: true, force: true });
  const reuse = ExportReuse.load(data, out);
  const copy = (from: string, relative: string): void => observer.advance(1, reuse.place(from, partial, `${BUNDLE}/${relative}`));
  try {
    observer.step('bundle');
    for (const conversation of conversations) {
      // The conversation is its session unless one was supplied; the session
      // a chain was built from is in its rounds.
      const session = conversation;
      for (const landed of landedFilesOfSession(data, session)) {
        copy(landed.path, `${session}/${landed.relative}`);
        const sd = path.join(path.dirname(landed.path), sessionDataName(path.basename(landed.path)));
        if (fs.existsSync(sd)) copy(sd, `${session}/${path.posix.dirname(landed.relative)}/${path.basename(sd)}`);
      }
      const chain = conversationFolder(data, conversation);
      for (const part of ['rounds', 'branches']) {
        for (const name of listFolder(path.join(chain, part))) copy(path.join(chain, part, name), `_conversations/${conversation}/${part}/${name}`);
      }
      for (const branch of listFolder(path.join(chain, 'labels'))) {
        for (const name of listFolder(path.join(chain, 'labels', branch))) copy(path.join(chain, 'labels', branch, name), `_conversations/${conversation}/labels/${branch}/${name}`);
      }
    }
    fs.mkdirSync(partial, { recursive: true });
    observer.step('manifest');
    const { entries, ...manifest } = writeManifest(partial, reuse.digests, (bytes) => observer.advance(1, bytes));
    // Swap in the new export; the earlier one goes only once the new one is whole.
    observer.step('replace');
    const previous = `${out}.previous-${process.pid}`; // see recoverInterruptedExports
    if (fs.existsSync(out)) fs.renameSync(out, previous);
    fs.renameSync(partial, out);
    fs.rmSync(previous, { recursive: true, force: true });
    reuse.save(entries);
    return { out, conversations: [...conversations], ...manifest, reused: reuse.reused, copied: reuse.copied };
  } catch (error) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

/** Where this process writes the export before swapping it in at `out`. */
function partialFolder(out: string): string {
  return `${out}.partial-${process.pid}`;
}

const LEFT_BY = /^(.*)\.(partial|previous)-(\d+)$/;

/**
 * Tidies what an export that died left beside `out` (a crash, a kill, an
 * interruption: Ctrl-C ends the process at once, which is safe because every
 * step before the swap writes only new files): a half-written export is removed, and an earlier export that
 * was moved aside for the swap and never removed is put back when nothing
 * took its place. Folders of a process still running are left to it.
 */
export function recoverInterruptedExports(out: string): void {
  const folder = path.dirname(out);
  for (const name of listFolder(folder)) {
    const left = LEFT_BY.exec(name);
    if (!left || left[1] !== path.basename(out)) continue;
    const pid = Number(left[3]);
    if (pid === process.pid || isRunning(pid)) continue;
    const where = path.join(folder, name);
    if (left[2] === 'previous' && !fs.existsSync(out)) fs.renameSync(where, out);
    else fs.rmSync(where, { recursive: true, force: true });
  }
}
