// What a redacted secret is replaced with, and how a `.sd` part says it.
//
//   [redacted:<rule>:<bytes>]
//
// The placeholder names the rule that matched and the size in bytes (UTF-8)
// of what it replaced, so a reader sees that something was there, why it was
// taken, and how large it was, and the `.sd` derived from the redacted copy
// can say so without any side file. It is plain ASCII, so it needs no JSON
// escaping and has the same length in the payload and in the decoded text.
//
// A placeholder is only read as one inside a record its landed line marks as
// redacted: a transcript that merely talks about redaction (this project's
// own, for one) is never mistaken for a redacted one.

import type { Part, SessionDataRow } from './format.ts';

export const RULE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

const PLACEHOLDER = /\[redacted:([a-z0-9][a-z0-9-]{0,63}):(\d+)\]/g;

/**
 * The rules under which a redaction leaves a medium's data out whole (an
 * image, a document), as no rule can read it for secrets; its placeholder
 * states the size of the medium's bytes, which is what its part's `bytes` is.
 */
export const MEDIA_LEFT_OUT = { image: 'image', document: 'document' } as const;

/** The rule and the bytes of a text that is one placeholder and nothing else; undefined for any other text. */
export function wholePlaceholder(text: string): { rule: string; bytes: number } | undefined {
  const match = /^\[redacted:([a-z0-9][a-z0-9-]{0,63}):(\d+)\]$/.exec(text);
  return match ? { rule: match[1]!, bytes: Number(match[2]) } : undefined;
}

export function placeholder(rule: string, bytes: number): string {
  return `[redacted:${rule}:${bytes}]`;
}

/** The placeholders in a text: how many, the bytes they stand for, and their own length. */
export function placeholdersIn(text: string): { count: number; removed: number; length: number } {
  let count = 0;
  let removed = 0;
  let length = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    count++;
    removed += Number(match[2]);
    length += match[0].length;
  }
  return { count, removed, length };
}

/**
 * A row of a redacted record with each part that holds a placeholder in
 * state `redacted`: `removed` is the bytes taken out of it, and `bytes` stays
 * what sd/1 says it is, the size of the original content.
 */
export function markRedactedParts(row: SessionDataRow): SessionDataRow {
  let changed = false;
  const parts = row.parts.map((part): Part => {
    const found = placeholdersIn(JSON.stringify(part));
    if (found.count === 0) return part;
    changed = true;
    return { ...part, state: 'redacted', bytes: Math.max(0, part.bytes - found.length) + found.removed, removed: found.removed };
  });
  return changed ? { ...row, parts } : row;
}
