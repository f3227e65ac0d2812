// Stage 6: cut context epochs, only at explicit boundaries.
//
// A reset is never inferred: the boundary record says so, and names the last
// record before it (`continues`), which is the only link back, since the
// boundary's own parent is empty (seed design-notes/02 §1.6, 27 of 27). An
// epoch is ordered by landed position, never by time: the summary is stamped
// earlier than its own boundary. A child stream never resets, so it is one
// epoch.

import type { IndexEntry } from '../index/session-index.ts';
import { recordKey } from './record-keys.ts';

export interface Epoch {
  readonly id: string;
  readonly stream: string;
  /** The reset that began it; undefined for the stream's first epoch. */
  readonly boundary?: IndexEntry;
  /** For a reset: whether the record it continues from is in the stream before it. */
  readonly continuesFound?: boolean;
}

export interface EpochCut {
  readonly epochs: Epoch[];
  /** The epoch each record falls in, by record key. */
  readonly epochOf: Map<string, Epoch>;
}

export function cutEpochs(stream: string, records: readonly IndexEntry[]): EpochCut {
  let current: Epoch = { id: `${stream}/epoch/start`, stream };
  const epochs = [current];
  const epochOf = new Map<string, Epoch>();
  const seen = new Set<string>();
  for (const record of records) {
    if (record.flags.includes('context_reset')) {
      current = { id: `${stream}/epoch/${recordKey(record)}`, stream, boundary: record, continuesFound: record.continues !== undefined && seen.has(record.continues) };
      epochs.push(current);
    }
    epochOf.set(recordKey(record), current);
    if (record.id !== undefined) seen.add(record.id);
  }
  return { epochs, epochOf };
}
