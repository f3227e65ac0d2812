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

/**
 * The provider call a record is a fragment of: its call id, or, for an agent
 * record that carries none (a file another tool saved again without the
 * provider's message ids), a call of its own named by the record. Never
 * grouped by parent or position: without an id nothing says two such records
 * were one call.
 */
export function callKey(entry: IndexEntry): string | undefined {
  if (entry.call !== undefined) return entry.call;
  return entry.from === 'agent' && entry.kind === 'transcript' && !entry.flags.includes('structural') ? `record-${recordKey(entry)}` : undefined;
}
