// The most verify reads of each kind of file, and how many of a kind of
// problem it names, so that the memory it takes is bounded whatever a
// folder or an archive holds (docs/verification.md, "Bounded memory"). Each
// bound is far past what the tool writes; a file past its bound is named in
// one line, and not read.

import { compareBytes, MANIFEST } from '../bundle/manifest.ts';
import type { Problem } from './storage.ts';

/**
 * The longest line of a landed file or `.sd` verify reads, far past any real
 * transcript line (about a megabyte at most): a longer one ends the reading
 * of its file. A round's lines have their own bound, LONGEST_ROUND_LINE
 * (session-flow/chain.ts), of the same size.
 */
export const LONGEST_LINE = 64 << 20;

/**
 * The largest landed file or `.sd`: a landed file is closed once past
 * 32 MiB, so it holds that and one line, which may be at most LONGEST_LINE;
 * its `.sd` is smaller.
 */
export const PARSED_ENTRY_BYTES = 128 << 20;

/**
 * The largest round. A round holds the entities that changed since the one
 * before, a few hundred bytes each: the first round of a session with
 * gigabytes of evidence comes to tens of megabytes.
 */
export const ROUND_BYTES = 128 << 20;

/**
 * The largest manifest, or plain manifest. The manifest the export writes
 * takes 118 bytes a file besides its path, and a bundle's paths are about a
 * hundred bytes long, so this lists some 150,000 files: an export of some
 * 2,500 files holds about 200 MB of evidence.
 */
export const MANIFEST_BYTES = 32 << 20;

/**
 * The most files, and the most folders, an archive may have before its
 * manifest, whose bookkeeping (path, size, digest) is held until the
 * manifest says which it lists: about as many as a manifest of
 * MANIFEST_BYTES the export writes can list. After the manifest, a file it
 * does not list costs a count.
 */
export const ENTRIES_BEFORE_MANIFEST = 200_000;

/** The largest root digest file: 64 hexadecimal digits and a newline. */
export const ROOT_DIGEST_BYTES = 4 << 10;

/** The largest branch record: it lists the tool uses after its boundary, a few hundred bytes each. */
export const BRANCH_RECORD_BYTES = 16 << 20;

/** The largest state file of a session (storage zone): a few short lines. */
export const STATE_BYTES = 1 << 20;

/** How many files the manifest does not list are named; the rest are counted. */
export const EXTRAS_NAMED = 10;

/** How many problems with single entries are named (a link, a path out of place, a file of no place); the rest are counted. */
export const PROBLEMS_NAMED = 1000;

/** What verify says of a file of `size` bytes past `bound`, the most `kind` may have. */
export function pastBound(size: number, bound: number, kind: string): string {
  return `${size} bytes, more than the ${bound} ${kind} may have`;
}

/**
 * Problems of one kind, kept up to `limit` and counted past it, so that a
 * folder or an archive of millions of wrong entries costs a count, not a
 * list. `closing` words the one problem that says how many more there were.
 */
export class ProblemsUpTo {
  private readonly kept: Problem[] = [];
  private more = 0;

  constructor(
    private readonly limit: number,
    private readonly closing: (more: number, all: number) => Problem,
  ) {}

  add(path: string, what: string): void {
    if (this.kept.length < this.limit) this.kept.push({ path, what });
    else this.more++;
  }

  /** The problems kept, then the closing one when any were past the limit. */
  problems(): Problem[] {
    return this.more === 0 ? [...this.kept] : [...this.kept, this.closing(this.more, this.kept.length + this.more)];
  }
}

/**
 * The files present that the manifest does not list: a count, and the first
 * EXTRAS_NAMED in bytewise order, so that which are named does not depend on
 * the order a folder is listed or an archive packed in.
 */
export class ExtraFiles {
  private readonly first: string[] = [];
  count = 0;

  add(relative: string): void {
    this.count++;
    if (this.first.length === EXTRAS_NAMED && compareBytes(relative, this.first[EXTRAS_NAMED - 1]!) >= 0) return;
    let at = this.first.length;
    while (at > 0 && compareBytes(relative, this.first[at - 1]!) < 0) at--;
    this.first.splice(at, 0, relative);
    if (this.first.length > EXTRAS_NAMED) this.first.pop();
  }

  /** One problem for each file named, then one with the count when there are more. */
  problems(): Problem[] {
    const named = this.first.map((relative) => ({ path: relative, what: 'extra: the manifest does not list it' }));
    if (this.count > this.first.length) named.push({ path: MANIFEST, what: `${this.count - this.first.length} more files present that it does not list, ${this.count} in all; the first ${this.first.length} in bytewise order are named` });
    return named;
  }
}
