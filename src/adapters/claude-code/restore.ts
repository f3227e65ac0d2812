// Writes a branch's linear projection as a Claude Code transcript, so that a
// person can resume it in Claude Code or collect it again.
//
// The records are the originals, re-chained: each one's parentUuid names the
// one before it in the projection, the first has none, a context reset keeps
// a null parent and points across with logicalParentUuid, and every record
// carries the new session id. Nothing else in a record changes.

import fs from 'node:fs';
import path from 'node:path';
import { TranscriptExists, type RestoredRecord } from '../adapter.ts';

export function writeRestoredTranscript(out: string, project: string, session: string, records: readonly RestoredRecord[]): string {
  let previous: string | null = null;
  const lines: string[] = [];
  for (const { payload } of records) {
    const record = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
    record.sessionId = session;
    if (record.type === 'system' && record.subtype === 'compact_boundary') {
      record.parentUuid = null;
      record.logicalParentUuid = previous;
    } else {
      record.parentUuid = previous;
    }
    // A tool result names the record that asked for it; in a linear
    // projection that is the record before it, as parentUuid now says.
    if ('sourceToolAssistantUUID' in record) record.sourceToolAssistantUUID = previous;
    lines.push(JSON.stringify(record));
    if (typeof record.uuid === 'string') previous = record.uuid;
  }
  const file = path.join(out, project, `${session}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (fs.existsSync(file)) throw new TranscriptExists(`${file} already exists; restore never overwrites a transcript`);
  fs.writeFileSync(file, lines.map((line) => `${line}\n`).join(''));
  return file;
}
