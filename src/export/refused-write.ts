// A write the file system refused during an export (a full disk, a quota, a
// read-only or unwritable folder), said in one line: the file or folder it
// was, what the export left, and what to do. Where it went is told by the
// file the error names, else by the step the export was in.

import fs from 'node:fs';
import path from 'node:path';
import type { StepObserver } from '../bundle/steps.ts';
import { isOutOfRoom, refusalOf, refusedWriteCode, WriteFailure } from '../files/write-failure.ts';
import type { ExportPlaces } from './destination.ts';

/** The step an export is in, as its observer hears it: what a refused write is blamed on when its error names no file. */
export class StepWatch implements StepObserver {
  current: string | undefined;

  constructor(private readonly inner: StepObserver) {}

  step(name: string): void {
    this.current = name;
    this.inner.step(name);
  }

  advance(items: number, bytes: number): void {
    this.inner.advance(items, bytes);
  }

  childMemory(bytes: number): void {
    this.inner.childMemory?.(bytes);
  }
}

type Place = 'data' | 'out' | 'archive';

// The steps that write the export folder, and those after which it is in place.
const EXPORT_FOLDER_STEPS = new Set(['bundle', 'redact', 'digest', 'manifest', 'replace']);
const AFTER_THE_SWAP = new Set(['archive']);

/**
 * The one line that says a refused write stopped the export, or undefined
 * when `error` is no refused write. `earlier` says whether an export was in
 * `places.out` before this one began, and an archive at `places.archive`.
 */
export function refusedWriteMessage(error: unknown, places: ExportPlaces, step: string | undefined, earlier: { readonly out: boolean; readonly archive: boolean }): string | undefined {
  const code = refusedWriteCode(error);
  if (code === undefined) return undefined;
  const file = fileOf(error);
  const place = (file !== undefined ? placeOfFile(file, places) : undefined) ?? placeOfStep(step, places);
  const failure = file !== undefined ? new WriteFailure(file, code).message : refusalOf(code);
  const room = isOutOfRoom(code);
  const written = step !== undefined && AFTER_THE_SWAP.has(step);
  switch (place) {
    case 'archive': {
      const archive = places.archive!;
      const left = earlier.archive ? 'the earlier archive is left as it was' : 'no archive was written';
      // The file is the archive, or the temporary file it is written to: named already.
      return `--archive ${archive}: the archive could not be written: ${refusalOf(code)}; the export in ${places.out} is written and whole, and ${left}; ${room ? `free space on the file system that holds ${path.dirname(archive)}, or give --archive a file on another one` : `make ${path.dirname(archive)} writable, or give --archive a file in a folder you can write`}, and export again`;
    }
    case 'out': {
      const left = earlier.out ? `the earlier export in ${places.out} is left as it was` : 'no export was written';
      const folder = path.dirname(places.out);
      return `--out ${places.out}: the export could not be written: ${failure}; nothing of it is left, and ${left}; ${room ? `free space on the file system that holds ${folder}, or give --out a folder on another one` : `make ${folder} writable, or give --out a folder you can write`}, and export again`;
    }
    case 'data': {
      const left = written ? `the export in ${places.out} is written and whole` : earlier.out ? `no export was written, and the earlier one in ${places.out} is left as it was` : 'no export was written';
      return `--data ${places.data}: ${file !== undefined ? failure : `the data folder could not be written: ${failure}`}; ${left}; ${room ? `free space on the file system that holds ${places.data}` : `make ${places.data} writable`}, and export again: what landed stays`;
    }
  }
}

/** The file a refused write names: one this tool named (WriteFailure), else Node's own (a copy's destination, an open's path); through `cause`. */
function fileOf(error: unknown): string | undefined {
  for (let at = error, depth = 0; at !== undefined && at !== null && depth < 8; at = (at as Error).cause, depth++) {
    if (at instanceof WriteFailure) return at.file;
    const named = at as NodeJS.ErrnoException & { dest?: unknown };
    if (typeof named.dest === 'string') return named.dest;
    if (typeof named.path === 'string') return named.path;
  }
  return undefined;
}

function placeOfFile(file: string, places: ExportPlaces): Place | undefined {
  const absolute = path.resolve(file);
  const within = (folder: string): boolean => absolute === folder || absolute.startsWith(`${folder}${path.sep}`);
  if (places.archive !== undefined && (absolute === places.archive || absolute.startsWith(`${places.archive}.`))) return 'archive';
  // The export is written beside its folder, as <out>.partial-<pid>, and the earlier one moved aside as <out>.previous-<pid>.
  if (within(places.out) || absolute.startsWith(`${places.out}.partial-`) || absolute.startsWith(`${places.out}.previous-`)) return 'out';
  if (within(places.data)) return 'data';
  return undefined;
}

function placeOfStep(step: string | undefined, places: ExportPlaces): Place {
  if (step === 'archive' && places.archive !== undefined) return 'archive';
  if (step !== undefined && EXPORT_FOLDER_STEPS.has(step)) return 'out';
  // The site is written into the export folder, and its cache into the data folder: the fuller of the two.
  if (step === 'site') return freeBytes(path.dirname(places.out)) <= freeBytes(places.data) ? 'out' : 'data';
  return 'data';
}

/** Bytes free to this process on the file system that holds `where` (or its nearest folder that exists). */
function freeBytes(where: string): number {
  for (let at = path.resolve(where); ; at = path.dirname(at)) {
    try {
      const stats = fs.statfsSync(at);
      return stats.bavail * stats.bsize;
    } catch {
      if (at === path.dirname(at)) return Number.POSITIVE_INFINITY;
    }
  }
}
