// Stable keys for records and the nodes made from them.
//
// Ids come from stable evidence, never from position in a stream: a key like
// "the 14th record" changes when an earlier source is backfilled, and then
// cannot supersede its own earlier revision (seed design-notes/02 §2.3). The
// runtime's record id is used where there is one; otherwise the landed
// location, which never changes once written.

import type { IndexEntry } from '../index/session-index.ts';
import type { EvidenceRef } from '../model/structure.ts';

export function recordKey(entry: IndexEntry): string {
  return entry.id ?? `at-${entry.seq}.${entry.row}`;
}

export function evidenceOf(entry: IndexEntry): EvidenceRef {
  return { seq: entry.seq, row: entry.row };
}
