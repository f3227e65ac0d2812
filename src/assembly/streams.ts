// Stage 2: partition streams.
//
// Membership comes from the file a record landed in, never from a field: the
// runtime's sidechain marker is absent on 28.7% of main records (seed
// design-notes/02 §1.2). The landing layout already put each stream in its own
// folder, so this only groups what is there, in landed order.

import type { IndexEntry } from '../index/session-index.ts';

export interface Stream {
  /** main, or the child's agent id. */
  readonly id: string;
  /** The stream's transcript records, in landed order. */
  readonly records: IndexEntry[];
  /** The child's sidecar rows, if it has a sidecar. */
  readonly sidecar: IndexEntry[];
}

export interface Partition {
  readonly streams: Map<string, Stream>;
  /** Records of workflow runs (journals, manifests, scripts), by run id. */
  readonly runs: Map<string, IndexEntry[]>;
}

export function partitionStreams(canonical: readonly IndexEntry[]): Partition {
  const streams = new Map<string, Stream>();
  const runs = new Map<string, IndexEntry[]>();
  for (const entry of canonical) {
    const [group, name] = entry.place.split('/') as [string, string];
    if (group === 'runs') {
      let records = runs.get(name);
      if (!records) runs.set(name, (records = []));
      records.push(entry);
      continue;
    }
    let stream = streams.get(name);
    if (!stream) streams.set(name, (stream = { id: name, records: [], sidecar: [] }));
    (entry.kind === 'agent_meta' ? stream.sidecar : stream.records).push(entry);
  }
  return { streams, runs };
}
