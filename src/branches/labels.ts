// Labels and summaries a person gives a branch, natural or explicit.
//
//   <data>/_conversations/<conversation>/labels/<branch>/<n>-<digest12>.json   label/1, immutable, 0444
//
// Nothing about a branch is edited to label it: each change is a new record,
// numbered in order, and the branch reads the latest one (whole: its labels
// and its summary). A summary given here replaces the deterministic stub
// "[N turns, unsummarized]"; without one, the stub stays.

import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeOnce } from '../files/atomic-file.ts';
import { listFolder } from '../files/folders.ts';
import { conversationFolder } from '../session-flow/chain.ts';
import { TOOL } from './explicit.ts';

export const LABEL_SCHEMA = 'label/1';

export interface LabelRecord {
  readonly schema: typeof LABEL_SCHEMA;
  readonly conversation: string;
  readonly branch: string;
  readonly labels: string[];
  readonly summary?: string;
  readonly provenance: { readonly tool: string; readonly time: string; readonly actor: string };
}

const RECORD_NAME = /^(\d{6,})-([0-9a-f]{12})\.json$/;

function labelFolder(data: string, conversation: string, branch: string): string {
  return path.join(conversationFolder(data, conversation), 'labels', branch);
}

export function labelBranch(data: string, conversation: string, branch: string, change: { labels: string[]; summary?: string; by?: string; now?: Date }): { record: LabelRecord; file: string } {
  const folder = labelFolder(data, conversation, branch);
  const next = listFolder(folder).filter((name) => RECORD_NAME.test(name)).length + 1;
  const record: LabelRecord = {
    schema: LABEL_SCHEMA,
    conversation,
    branch,
    labels: [...new Set(change.labels)].sort(),
    ...(change.summary !== undefined ? { summary: change.summary } : {}),
    provenance: { tool: TOOL, time: (change.now ?? new Date()).toISOString(), actor: change.by ?? process.env.SESSIONIZER_ACTOR ?? process.env.USER ?? os.userInfo().username },
  };
  const bytes = `${JSON.stringify(record, null, 2)}\n`;
  const digest = crypto.createHash('sha256').update(bytes).digest('hex');
  const file = path.join(folder, `${String(next).padStart(6, '0')}-${digest.slice(0, 12)}.json`);
  writeOnce(file, bytes);
  return { record, file };
}

/** The latest label record of each branch of a conversation. */
export function currentLabels(data: string, conversation: string): Map<string, LabelRecord> {
  const current = new Map<string, LabelRecord>();
  const root = path.join(conversationFolder(data, conversation), 'labels');
  for (const branch of listFolder(root)) {
    const names = listFolder(path.join(root, branch)).filter((name) => RECORD_NAME.test(name)).sort();
    const latest = names.at(-1);
    if (latest) current.set(branch, JSON.parse(fs.readFileSync(path.join(root, branch, latest), 'utf8')) as LabelRecord);
  }
  return current;
}
