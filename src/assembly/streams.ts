// Stage 2: partition streams.
//
// Membership comes from the file a record landed in, never from a field: the
// runtime's sidechain marker is absent on many main records (seed
// design-notes/02 §1.2). The landing layout already put each stream in its own
// folder, so this mostly groups what is there, in landed order.
//
// The one exception is a child agent that wrote into its parent's file, as
// agents did before they had files of their own: its records are marked as a
// child's, and each tree of them, from a first record with no parent, is a
// child stream of its own, named by that first record. Marked records that
// landed in a child's own file are that child's already.

import type { IndexEntry } from '../index/session-index.ts';
import { recordKey } from './record-keys.ts';

export interface Stream {
  /** main, the child's agent id, or for a child written into the main file, inline- and its first record's id. */
  readonly id: string;
  /** The stream's transcript records, in landed order. */
  readonly records: IndexEntry[];
  /** The child's sidecar rows, if it has a sidecar. */
  readonly sidecar: IndexEntry[];
  /** Set for a child written into the main file. */
  readonly inline?: boolean;
}

export interface Partition {
  readonly streams: Map<string, Stream>;
  /** Records of workflow runs (journals, manifests, scripts), by run id. */
  readonly runs: Map<string, IndexEntry[]>;
}

export function partitionStreams(canonical: readonly IndexEntry[]): Partition {
  const streams = new Map<string, Stream>();
  const runs = new Map<string, IndexEntry[]>();
  const inlineOf = inlineStreams(canonical);
  for (const entry of canonical) {
    const [group, name] = entry.place.split('/') as [string, string];
    if (group === 'runs') {
      let records = runs.get(name);
      if (!records) runs.set(name, (records = []));
      records.push(entry);
      continue;
    }
    const inline = inlineOf.get(entry);
    const id = inline ?? name;
    let stream = streams.get(id);
    if (!stream) streams.set(id, (stream = { id, records: [], sidecar: [], ...(inline !== undefined ? { inline: true } : {}) }));
    (entry.kind === 'agent_meta' ? stream.sidecar : stream.records).push(entry);
  }
  return { streams, runs };
}

// The inline child each marked record of the main file belongs to: the one
// its parents lead up to. A marked record whose parent is not a marked record
// of the file starts a child of its own.
function inlineStreams(canonical: readonly IndexEntry[]): Map<IndexEntry, string> {
  const marked = canonical.filter((entry) => entry.place === 'streams/main' && entry.kind === 'transcript' && entry.flags.includes('sidechain'));
  const byId = new Map<string, IndexEntry>();
  for (const entry of marked) if (entry.id !== undefined && !byId.has(entry.id)) byId.set(entry.id, entry);
  const streamOf = new Map<IndexEntry, string>();
  for (const entry of marked) {
    // Walked up to a record whose child is known, then written down the way
    // it came: iterative, since a child's chain can be long.
    const path: IndexEntry[] = [];
    const seen = new Set<IndexEntry>();
    let at = entry;
    let found: string | undefined;
    for (;;) {
      found = streamOf.get(at);
      if (found !== undefined) break;
      path.push(at);
      seen.add(at);
      const parent = at.parent !== undefined ? byId.get(at.parent) : undefined;
      // A cycle of parents has no first record: the record the walk came back to starts it.
      if (parent === undefined || seen.has(parent)) {
        found = `inline-${recordKey(at)}`;
        break;
      }
      at = parent;
    }
    for (const step of path) streamOf.set(step, found);
  }
  return streamOf;
}
