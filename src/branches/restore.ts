// `restore`: a branch's linear projection, root to its end, as a new
// transcript with a new session id. The projection takes the branch's path
// and, beside it, the results of tool uses on the path that hang off a path
// record (the other half of a parallel batch), in landed order. It fails
// closed: a cycle or a missing parent is an error, never an empty transcript.

import { DEFAULT_ADAPTER } from '../adapters/built-in.ts';
import crypto from 'node:crypto';
import { readRecordsAt } from '../landing/landed-file.ts';
import { landedFilesOfSession } from '../landing/session-state.ts';
import { treeOf } from './tree.ts';
import { branchPath, mainStreamOf } from './explicit.ts';

export function restoreBranch(data: string, conversation: string, name: string, out: string, session = conversation): { file: string; session: string; records: number } {
  const { records } = mainStreamOf(data, session);
  const tree = treeOf(records);
  // The same records as this tree's, by id: the path was read in a load of its own.
  const path = branchPath(data, conversation, name, session).map((entry) => tree.byId.get(entry.id!)!);
  const on = new Set(path);
  const used = new Set(path.flatMap((entry) => entry.calls.map((call) => call.id)));
  const siblings = path.flatMap((entry) => (tree.children.get(entry) ?? []).filter((child) => !on.has(child) && child.results.length > 0 && child.results.every((result) => used.has(result.of))));
  const chosen = [...path, ...siblings].sort((a, b) => tree.position.get(a)! - tree.position.get(b)!);
  // The payloads, read from the landed files once each.
  const bySeq = new Map<number, Set<number>>();
  for (const entry of chosen) bySeq.set(entry.seq, (bySeq.get(entry.seq) ?? new Set()).add(entry.row));
  const payloads = new Map<string, Buffer>();
  for (const file of landedFilesOfSession(data, session)) {
    const rows = bySeq.get(file.seq);
    if (!rows) continue;
    for (const [row, payload] of readRecordsAt(file.path, rows)) payloads.set(`${file.seq}:${row}`, payload);
  }
  // A new session id that depends only on what is restored, so restoring the
  // same branch twice names the same session (and refuses to overwrite it).
  const hex = crypto.createHash('sha256').update(`${conversation}\n${name}\n${chosen.map((entry) => entry.id).join('\n')}`).digest('hex');
  const restored = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  const file = DEFAULT_ADAPTER.writeRestoredTranscript(out, `-restored-${conversation.slice(0, 8)}-${name}`, restored, chosen.map((entry) => ({ payload: payloads.get(`${entry.seq}:${entry.row}`)! })));
  return { file, session: restored, records: chosen.length };
}
