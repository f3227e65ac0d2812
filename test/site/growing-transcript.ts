// Shared by the site's tests of pages kept from a conversation's earlier
// render: a transcript a test writes and grows, in a projects folder of its
// own, with a storage zone and an export folder of its own.

import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { stableUuid, Transcript } from '../../scripts/claude-code-records.ts';
import { prepareRenderer } from '../../src/site/generator/site.ts';
import { temporaryFolder } from '../helpers.ts';

/**
 * The transcript `t` of a session named from `label`, at `transcript` in the
 * project folder `project` under `root`, with the storage zone `data` and the
 * export folder `out`; `writeNewLines` appends to the file the lines added
 * to `t` since it last did. The kept renderer is made first: pages are kept
 * from an earlier render only by it.
 */
export async function growingTranscript(label: string, project: string): Promise<{ root: string; data: string; out: string; session: string; transcript: string; t: Transcript; writeNewLines: () => void }> {
  expect(await prepareRenderer()).not.toBe('failed');
  const root = temporaryFolder({ forFile: true });
  const data = temporaryFolder({ forFile: true });
  const out = path.join(temporaryFolder({ forFile: true }), 'export');
  const session = stableUuid(label, 1);
  const transcript = path.join(root, project, `${session}.jsonl`);
  fs.mkdirSync(path.dirname(transcript), { recursive: true });
  const t = new Transcript({ session });
  return { root, data, out, session, transcript, t, writeNewLines: () => fs.appendFileSync(transcript, t.drain()) };
}
