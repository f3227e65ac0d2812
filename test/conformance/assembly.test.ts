// The first assembly stages on every transcript of ../shared/corpus: after
// duplicate removal every tool use joins its result, except exactly the ones
// whose result the manifest says is not in the file, and no result is left
// without its use.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { removeDuplicates } from '../../src/assembly/duplicates.ts';
import { groupProviderCalls } from '../../src/assembly/provider-calls.ts';
import { partitionStreams } from '../../src/assembly/streams.ts';
import { joinTools } from '../../src/assembly/tools.ts';
import { loadSessionIndex } from '../../src/index/session-index.ts';
import { stableUuid } from '../../scripts/claude-code-records.ts';
import { collectOnce, temporaryFolder } from '../helpers.ts';

const corpus = path.resolve(fileURLToPath(new URL('../..', import.meta.url)), '..', 'shared', 'corpus');
const present = fs.existsSync(path.join(corpus, 'MANIFEST.json'));

interface ManifestEntry {
  readonly corpus_dir: string;
  readonly path: string;
  readonly features?: { tool_use_ids?: number; tool_results_matched?: number };
}

describe.skipIf(!present)('assembly stages on ../shared/corpus', () => {
  it('joins every tool use to its result, and names exactly the ones whose result is not in the file', { timeout: 120_000 }, () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'MANIFEST.json'), 'utf8')) as ManifestEntry[];
    const root = path.join(temporaryFolder(), 'projects');
    const placed = new Map<string, ManifestEntry>();
    manifest
      .filter((entry) => entry.path.endsWith('.jsonl'))
      .forEach((entry, index) => {
        const session = stableUuid('assembly-conformance', index);
        const target = path.join(root, '-corpus', `${session}.jsonl`);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(path.join(corpus, entry.corpus_dir, entry.path), target);
        placed.set(session, entry);
      });
    const data = temporaryFolder();
    collectOnce(root, data);
    let steps = 0;
    let unavailable = 0;
    for (const [session, entry] of placed) {
      if (!fs.existsSync(path.join(data, session))) continue; // an empty file lands nothing
      const removal = removeDuplicates(loadSessionIndex(data, session).entries);
      for (const stream of partitionStreams(removal.canonical).streams.values()) {
        const join = joinTools(stream.id, stream.records, groupProviderCalls(stream.id, stream.records));
        const missing = join.steps.filter((step) => step.result === 'unavailable').length;
        expect([join.steps.length, missing], entry.path).toEqual([entry.features?.tool_use_ids ?? 0, (entry.features?.tool_use_ids ?? 0) - (entry.features?.tool_results_matched ?? 0)]);
        expect(join.orphanResults, entry.path).toEqual([]);
        steps += join.steps.length;
        unavailable += missing;
      }
    }
    expect(steps).toBeGreaterThan(2000);
    expect(unavailable).toBe(2);
  });
});
