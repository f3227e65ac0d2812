// Every tool the real public transcripts in ../shared/corpus call, when the
// corpus is present beside the checkout: each call whose input has a value
// gets a subject for its one line (model/tools.ts), as the site learns it
// through the adapter registry. The calls are read as `.sd` call parts, by
// the adapter's own conversion, so the test knows no runtime's field names.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeWhere, filesMissing } from '../requirements.ts';
import { claudeCodeConverter } from '../../src/adapters/claude-code/convert.ts';
import { describeToolUse } from '../../src/adapters/built-in.ts';
import type { LandedHeader } from '../../src/landing/landed-file.ts';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const corpus = path.resolve(repository, '..', 'shared', 'corpus');
const missing = filesMissing(path.join(corpus, 'MANIFEST.json'));

interface ManifestEntry {
  readonly corpus_dir: string;
  readonly path: string;
}

const HEADER: LandedHeader = { h: 1, seq: 1, at: '2026-01-01T00:00:00.000Z', kind: 'transcript', adapter: 'claude-code/0.1.0', src: 'corpus.jsonl', session: 'corpus', stream: 'main', state: 'available' };

/** Whether a call's input holds any value to say what the call is about: a call with no arguments has nothing to show. */
function hasArguments(input: unknown): boolean {
  if (typeof input !== 'object' || input === null) return input !== undefined && input !== null && input !== '';
  return Object.values(input).some((value) => value !== undefined && value !== null && value !== '');
}

describeWhere(missing, 'tool subjects on ../shared/corpus', () => {
  it('gives every tool the transcripts call a subject for each call with arguments', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'MANIFEST.json'), 'utf8')) as ManifestEntry[];
    const uses = new Map<string, { calls: number; withArguments: number; withoutSubject: string[] }>();
    for (const entry of manifest.filter((file) => file.path.endsWith('.jsonl'))) {
      const lines = fs.readFileSync(path.join(corpus, entry.corpus_dir, entry.path)).toString('utf8').split('\n');
      lines.forEach((line, index) => {
        if (line.trim() === '') return;
        const payload = Buffer.from(line);
        const row = claudeCodeConverter.convert({ ord: index + 1, off: 0, sha: '', encoding: 'raw', payload }, HEADER, index + 1);
        for (const part of row.parts) {
          if (part.k !== 'call') continue;
          const tool = uses.get(part.name) ?? { calls: 0, withArguments: 0, withoutSubject: [] };
          uses.set(part.name, tool);
          tool.calls++;
          if (!hasArguments(part.input)) continue;
          tool.withArguments++;
          const subject = describeToolUse(part.name, part.input).subject;
          if (subject === undefined || subject.trim() === '') tool.withoutSubject.push(`${entry.corpus_dir}/${entry.path}:${index + 1}`);
        }
      });
    }
    const names = [...uses.keys()].sort();
    // The corpus calls the file and shell tools, the task list, subagents, the web and MCP servers' tools.
    expect(names.length, names.join(', ')).toBeGreaterThan(30);
    for (const name of ['Bash', 'Read', 'Edit', 'TaskCreate', 'TaskUpdate', 'ToolSearch', 'Skill', 'SendMessage']) expect(names).toContain(name);
    const without = names.filter((name) => uses.get(name)!.withoutSubject.length > 0).map((name) => `${name} (${uses.get(name)!.withoutSubject.length} of ${uses.get(name)!.withArguments} calls with arguments, first at ${uses.get(name)!.withoutSubject[0]})`);
    expect(without).toEqual([]);
  });
});
