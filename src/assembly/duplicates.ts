// Stage 1: remove duplicate records, keeping the FIRST.
//
// Nothing downstream is correct before this. Claude Code re-writes a block of
// history just before it resets context, each record exactly twice, and the
// later copy is the worse one: its cycle id is rewritten onto the cycle active
// at the reset, its tool output is often blanked, and sometimes its parent
// differs (seed design-notes/02 §1.1). Nothing tells a
// copy from an original but line order, so "first" means first in landed
// order. The key is (stream, record id); a record with no id is always its
// own record, never one colliding key. A removed copy is kept out of every
// later lookup, not only id resolution.

import type { IndexEntry } from '../index/session-index.ts';

export interface DuplicateRemoval {
  /** Every entry that is not a later copy, in landed order. */
  readonly canonical: IndexEntry[];
  /** Each later copy with the first occurrence it repeats. */
  readonly copies: { readonly copy: IndexEntry; readonly first: IndexEntry }[];
}

export function removeDuplicates(entries: readonly IndexEntry[]): DuplicateRemoval {
  const first = new Map<string, IndexEntry>();
  const canonical: IndexEntry[] = [];
  const copies: { copy: IndexEntry; first: IndexEntry }[] = [];
  for (const entry of entries) {
    if (entry.id === undefined || entry.kind !== 'transcript') {
      canonical.push(entry);
      continue;
    }
    const key = `${entry.place}\u0000${entry.id}`;
    const earlier = first.get(key);
    if (earlier) {
      copies.push({ copy: entry, first: earlier });
      continue;
    }
    first.set(key, entry);
    canonical.push(entry);
  }
  return { canonical, copies };
}
