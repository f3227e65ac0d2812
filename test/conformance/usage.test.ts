// Token usage on every transcript of ../shared/corpus, checked against
// ccusage, a tool people already trust, run offline on the same files laid
// out as a Claude Code projects folder.
//
// Per session (its main transcript and every agent file of it), every
// provider call the files hold is one of ours (a record the client wrote, of
// model <synthetic>, is none), and our input, cache-read, cache-write and
// output totals must be ccusage's but for what the causes below explain. The
// two read the same records in two ways, and every difference, call by call,
// must come from one of these causes, each counted from the files themselves
// and checked against what ccusage reports:
//
//   most tokens  ccusage counts a provider call once per message id (with its
//                request id when there is one), from the fragment with the
//                most tokens; we take the last fragment's usage in line
//                order. Input and cache tokens are the same on every fragment
//                of a call (checked here), so only output can differ.
//   timestamp    ccusage 20.0.24 reads no record whose timestamp's fraction of
//                a second has other than three digits; we read them all.
//   request ids  a call whose fragments name more than one request id is
//                counted by ccusage once per request id, by us once.
//
// A record without a message id is a call of its own for both. ccusage also
// de-duplicates across sessions; the test checks that no call appears in two
// sessions, so that cause cannot arise here.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeWhere, filesMissing } from '../requirements.ts';
import { discoverSessions } from '../../src/adapters/claude-code/discover.ts';
import { assemble } from '../../src/parse/structure.ts';
import { loadSessionIndex } from '../../src/index/session-index.ts';
import { stableUuid } from '../../scripts/claude-code-records.ts';
import { collectOnce, completeLines, temporaryFolder } from '../helpers.ts';

const repository = fileURLToPath(new URL('../..', import.meta.url));
const corpus = path.resolve(repository, '..', 'shared', 'corpus');
const missing = filesMissing(path.join(corpus, 'MANIFEST.json'));
const ccusage = path.join(repository, 'node_modules', '.bin', 'ccusage');

interface ManifestEntry {
  readonly corpus_dir: string;
  readonly path: string;
}

const FIELDS = ['input', 'cache_read', 'cache_write', 'output'] as const;
type Field = (typeof FIELDS)[number];
type Totals = Record<Field, number>;
const zero = (): Totals => ({ input: 0, cache_read: 0, cache_write: 0, output: 0 });

const SESSION_ID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/**
 * The corpus as a projects folder: each transcript named by its session id in
 * a project folder named after where it was found, agent files in their
 * session's folder or beside it as their generation wrote them, and a file
 * with any other name given a session id of its own.
 */
function layOut(manifest: readonly ManifestEntry[], root: string): void {
  const project = (entry: ManifestEntry, folder: string | undefined): string => `${entry.corpus_dir}--${(folder ?? 'loose').replace(/[/.]/g, '-')}`;
  manifest.forEach((entry, index) => {
    const source = path.join(corpus, entry.corpus_dir, entry.path);
    const nested = new RegExp(`^(?:(.*)/)?(${SESSION_ID})/subagents/([^/]+)$`).exec(entry.path);
    const named = new RegExp(`^(?:(.*)/)?(${SESSION_ID})\\.jsonl$`).exec(entry.path);
    const agent = /^(?:(.*)\/)?(agent-[^/]+\.jsonl)$/.exec(entry.path);
    let target: string | undefined;
    if (nested) target = path.join(root, project(entry, nested[1]), nested[2]!, 'subagents', nested[3]!);
    else if (named) target = path.join(root, project(entry, named[1]), `${named[2]}.jsonl`);
    else if (agent) target = path.join(root, project(entry, agent[1]), agent[2]!);
    else if (entry.path.endsWith('.jsonl')) target = path.join(root, project(entry, undefined), `${stableUuid('usage-conformance', index)}.jsonl`);
    if (target === undefined) return;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(source, target);
  });
}

/** ccusage's own reading of a timestamp: whole seconds, or exactly three digits of fraction. */
function ccusageReadsTimestamp(value: unknown): boolean {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?(Z|[+-]\d{2}:\d{2})$/.test(value);
}

interface Fragment {
  readonly usage: Totals;
  readonly readable: boolean;
  /** Written by the client, not by a provider: no call of ours, though ccusage reads it. */
  readonly synthetic: boolean;
  /** What ccusage de-duplicates by: the message id, with the request id when there is one. */
  readonly key?: string;
}

/** The fragments of each call of a session's files, by call, in line order. */
function fragmentsOf(files: readonly string[]): Map<string, Fragment[]> {
  const calls = new Map<string, Fragment[]>();
  let anonymous = 0;
  for (const file of files) {
    for (const line of completeLines(file)) {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line.toString('utf8')) as Record<string, unknown>;
      } catch {
        continue;
      }
      const message = record?.message as { id?: unknown; model?: unknown; usage?: Record<string, unknown> } | undefined;
      if (record?.type !== 'assistant' || typeof message?.usage !== 'object' || message.usage === null) continue;
      const count = (value: unknown): number => (typeof value === 'number' ? value : 0);
      const usage = { input: count(message.usage.input_tokens), cache_read: count(message.usage.cache_read_input_tokens), cache_write: count(message.usage.cache_creation_input_tokens), output: count(message.usage.output_tokens) };
      const id = typeof message.id === 'string' && message.id !== '' ? message.id : `record ${++anonymous}`;
      const key = typeof message.id === 'string' ? `${message.id}:${typeof record.requestId === 'string' ? record.requestId : ''}` : undefined;
      calls.set(id, [...(calls.get(id) ?? []), { usage, readable: ccusageReadsTimestamp(record.timestamp), synthetic: message.model === '<synthetic>', ...(key !== undefined ? { key } : {}) }]);
    }
  }
  return calls;
}

describeWhere(missing, 'usage on ../shared/corpus against ccusage', () => {
  it('has per session every call of the files and the totals ccusage has, every difference owned by a named cause', { timeout: 300_000 }, () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'MANIFEST.json'), 'utf8')) as ManifestEntry[];
    const config = temporaryFolder();
    const root = path.join(config, 'projects');
    layOut(manifest, root);
    const discovery = discoverSessions(root);
    const data = temporaryFolder();
    collectOnce(root, data);

    const report = JSON.parse(execFileSync(ccusage, ['claude', 'session', '--json', '--offline'], { env: { ...process.env, CLAUDE_CONFIG_DIR: config }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as {
      sessions: { sessionId: string; projectPath: string; inputTokens: number; cacheReadTokens: number; cacheCreationTokens: number; outputTokens: number }[];
    };
    // ccusage names a session by its file: a session's own, or an agent file's
    // beside it, which is one of our sessions' streams.
    const sessionOfFile = new Map(discovery.sessions.flatMap((session) => session.sources.map((source) => [source.relative, session.id] as const)));
    const theirs = new Map<string, Totals>();
    for (const session of report.sessions) {
      const ours = sessionOfFile.get(`${session.projectPath}/${session.sessionId}.jsonl`) ?? (discovery.sessions.some((candidate) => candidate.id === session.sessionId) ? session.sessionId : undefined);
      expect(ours, `ccusage's session ${session.projectPath}/${session.sessionId}`).toBeDefined();
      const totals = theirs.get(ours!) ?? zero();
      totals.input += session.inputTokens;
      totals.cache_read += session.cacheReadTokens;
      totals.cache_write += session.cacheCreationTokens;
      totals.output += session.outputTokens;
      theirs.set(ours!, totals);
    }

    const causes = { most_tokens: 0, timestamp: 0, request_ids: 0 };
    // The tokens by which ours and ccusage's totals differ, by the causes that explain them.
    const differences: Record<string, Totals> = {};
    const owning = { most_tokens: 0, timestamp: 0, request_ids: 0 };
    const seenKeys = new Map<string, string>();
    const all = { ours: zero(), ccusage: zero(), calls: 0, calls_in_files: 0, unavailable: 0, lower_bound: 0 };
    for (const session of discovery.sessions) {
      // Every provider call the files hold, the client's own records left out: counted for every session, landed or not.
      const fileCalls = fragmentsOf(session.sources.map((source) => source.path));
      const providerCalls = [...fileCalls.values()].filter((fragments) => !fragments.every((fragment) => fragment.synthetic)).length;
      all.calls_in_files += providerCalls;
      if (!fs.existsSync(path.join(data, session.id))) continue; // an empty file lands nothing
      const index = loadSessionIndex(data, session.id);
      const structure = assemble(index, { conversation: session.id, throughSeq: index.throughSeq });
      const ours = zero();
      let calls = 0;
      for (const node of structure.nodes) {
        if (node.kind !== 'llm.call') continue;
        calls++;
        const usage = node.attrs!.usage as (Partial<Totals> & { output_final?: boolean }) | 'unavailable';
        if (usage === 'unavailable') {
          all.unavailable++;
          continue;
        }
        if (!usage.output_final) all.lower_bound++;
        for (const field of FIELDS) ours[field] += usage[field] ?? 0;
      }

      // What ccusage counts of each call, by the causes above, and how much of
      // that the causes say we do not count.
      const counts = zero();
      const explained = zero();
      expect(calls, `${session.id}: provider calls`).toBe(providerCalls);
      all.calls += calls;
      // Our output beyond what ccusage keeps of the first fragment it counts: each call's last fragment's against it.
      let outputDifference = 0;
      for (const [call, fragments] of fileCalls) {
        for (const fragment of fragments) {
          for (const field of ['input', 'cache_read', 'cache_write'] as const) expect(fragment.usage[field], `${session.id} call ${call}: ${field} on every fragment`).toBe(fragments[0]!.usage[field]);
          if (fragment.key === undefined) continue;
          expect(seenKeys.get(fragment.key) ?? session.id, `${fragment.key} appears in two sessions`).toBe(session.id);
          seenKeys.set(fragment.key, session.id);
        }
        const total = (fragment: Fragment): number => FIELDS.reduce((sum, field) => sum + fragment.usage[field], 0);
        const kept = new Map<string, Fragment>();
        fragments.forEach((fragment, position) => {
          if (!fragment.readable) return;
          const key = fragment.key ?? `record ${position}`;
          const before = kept.get(key);
          if (before === undefined || total(fragment) > total(before)) kept.set(key, fragment);
        });
        const counted = [...kept.values()];
        const named = {
          timestamp: counted.length < new Set(fragments.map((fragment, position) => fragment.key ?? `record ${position}`)).size,
          request_ids: counted.length > 1,
          most_tokens: counted.length === 1 && counted[0]!.usage.output !== fragments.at(-1)!.usage.output,
        };
        for (const cause of Object.keys(named) as (keyof typeof named)[]) if (named[cause]) causes[cause]++;
        // Where ccusage's reading of a call differs from ours, a named cause
        // says why, and owns the difference, so that the causes' differences
        // add up to the whole difference between the totals.
        const synthetic = fragments.every((fragment) => fragment.synthetic);
        const difference = zero();
        for (const field of ['input', 'cache_read', 'cache_write'] as const) difference[field] = (synthetic ? 0 : fragments[0]!.usage[field]) - counted.reduce((sum, fragment) => sum + fragment.usage[field], 0);
        difference.output = (synthetic ? 0 : fragments.at(-1)!.usage.output) - counted.reduce((sum, fragment) => sum + fragment.usage.output, 0);
        const owners = (Object.keys(named) as (keyof typeof named)[]).filter((cause) => named[cause]).join(' and ');
        if (FIELDS.some((field) => difference[field] !== 0)) {
          expect(owners, `${session.id} call ${call}: a difference without a named cause`).not.toBe('');
          for (const cause of Object.keys(named) as (keyof typeof named)[]) if (named[cause]) owning[cause]++;
        }
        if (owners !== '') {
          const owned = (differences[owners] ??= zero());
          for (const field of FIELDS) owned[field] += difference[field];
        }
        outputDifference += difference.output + counted.slice(1).reduce((sum, fragment) => sum + fragment.usage.output, 0);
        for (const fragment of counted) for (const field of FIELDS) counts[field] += fragment.usage[field];
        // We count the call once: its input and cache tokens, which ccusage
        // counts once per fragment it keeps, and its output from its last
        // fragment, to which ccusage's further kept fragments add.
        for (const field of ['input', 'cache_read', 'cache_write'] as const) explained[field] += (counted.length - 1) * fragments[0]!.usage[field];
        explained.output += counted.slice(1).reduce((sum, fragment) => sum + fragment.usage.output, 0);
      }
      const ccusageTotals = theirs.get(session.id) ?? zero();
      // ccusage reads the files as the causes say…
      expect(ccusageTotals, `${session.id}: ccusage's totals are what the named causes give`).toEqual(counts);
      // …and ours differ from its totals by exactly what those causes explain.
      for (const field of ['input', 'cache_read', 'cache_write'] as const) expect(ours[field], `${session.id} ${field}`).toBe(ccusageTotals[field] - explained[field]);
      expect(ours.output, `${session.id} output`).toBe(ccusageTotals.output - explained.output + outputDifference);
      for (const field of FIELDS) {
        all.ours[field] += ours[field];
        all.ccusage[field] += ccusageTotals[field];
      }
    }
    fs.mkdirSync(path.join(repository, 'test', 'artifacts'), { recursive: true });
    fs.writeFileSync(path.join(repository, 'test', 'artifacts', 'conformance-usage.json'), `${JSON.stringify({ ...all, causes, differences }, null, 2)}\n`);
    // Every call of every file was looked at, none in a file that landed nothing.
    expect(all.calls).toBe(all.calls_in_files);
    // A number observed is a number reported.
    expect(all.unavailable).toBe(0);
    // Every token by which the totals differ is owned by a named cause.
    for (const field of FIELDS) expect(Object.values(differences).reduce((sum, owned) => sum + owned[field], 0), `the ${field} the causes explain`).toBe(all.ours[field] - all.ccusage[field]);
    // A cause is counted on exactly the calls whose difference it owns.
    expect(causes).toEqual(owning);
  });
});
