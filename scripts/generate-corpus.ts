// Generates a large synthetic Claude Code projects tree, for benchmarks.
//
//   node --import tsx scripts/generate-corpus.ts --out DIR --bytes 200MB [--seed 1]
//
// The tree is shaped like real history (the layout is the one in
// src/adapters/claude-code/discover.ts):
//
//   -home-user-project-N/<session>.jsonl                                   main transcript
//   -home-user-project-N/<session>/subagents/agent-<id>.jsonl + .meta.json  child agents (about a third of sessions)
//   -home-user-project-N/<session>/subagents/workflows/wf_<run>/…           a workflow run (about one session in twelve):
//       agent-<id>.jsonl, agent-<id>.meta.json, journal.jsonl
//   -home-user-project-N/<session>/workflows/wf_<run>.json                  its manifest
//   -home-user-project-N/<session>/workflows/scripts/<label>-wf_<run>.js    its script
//
// Inside: prompts; provider calls split into fragments that share message.id,
// one block per fragment, with thinking blocks carrying signatures; tool_use
// and tool_result pairs whose main-transcript results carry a toolUseResult
// object (Bash, Read, Grep, Edit, Agent shapes) or, for errors, a bare string;
// some parallel tool calls; attachments, bookkeeping lines, turn durations and
// compactions in long sessions.
//
// Sizes: most lines are 300 B to 5 KB; about 3% of tool results are 20 to
// 200 KB; one line of about 1.2 MB per 100 MB (the first halfway through a
// smaller corpus, so every corpus has one). Sessions range from a few
// kilobytes to megabytes, and the first session is a fifth of the whole: a
// benchmark must meet one big session, not only many small ones. Generation
// stops once the requested bytes are written, within a few percent.
//
// Deterministic: the same seed and size write the same bytes. Randomness is
// mulberry32 seeded from a SHA-256 of the seed, ids come from
// scripts/claude-code-records.ts, and nothing reads the clock or Math.random.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { imageBlock, stableId, stableUuid, textBlock, thinkingBlock, toolUseBlock, Transcript } from './claude-code-records.ts';

export interface CorpusOptions {
  /** The projects folder to write; it must not exist yet or be empty. */
  readonly out: string;
  /** Total bytes to write. */
  readonly bytes: number;
  readonly seed: string;
}

export interface CorpusSummary {
  readonly files: number;
  readonly bytes: number;
  readonly sessions: number;
  /** Size of the largest file written. */
  readonly largestFile: number;
}

const PROJECTS = 12;
/** The first session's share of the corpus. */
const BIG_SESSION_SHARE = 0.2;
const HUGE_LINE_EVERY = 100_000_000;
/** A transcript is written out in pieces of about this size, so memory does not grow with it. */
const WRITE_PIECE = 8 << 20;

/** mulberry32: small, fast, and the same on every machine. */
export function randomSource(seed: string): () => number {
  let state = crypto.createHash('sha256').update(`corpus:${seed}`).digest().readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

// Words of prose and code, with characters that JSON must escape (quotes,
// backslashes, newlines, tabs) and some that are not ASCII, all in the Basic
// Multilingual Plane so that a slice never splits a surrogate pair.
const WORDS = (
  'the build runs tsc then bundles with esbuild and the tests use vitest so we check each step before moving on ' +
  'function const return await import export interface type class extends implements async yield throw catch ' +
  'config loader settings parser stream record session cursor digest landed branch compaction summary agent tool ' +
  'result error warning file path line offset sequence manifest journal workflow script child parent prompt answer ' +
  'model usage tokens cache "quoted" {"key":"value"} [1,2,3] C:\\Users\\dev\\src \\n\\t ${value} <div> </div> && || => ' +
  'naïve café résumé → ✓ — … 中文 日本語 Grüße ±0.5 ∑ λ'
).split(' ');

/** Text-like content: slices of one pseudo-random megabyte of words. */
class Text {
  private readonly pool: string;
  constructor(private readonly random: () => number) {
    const words: string[] = [];
    let length = 0;
    while (length < 1 << 20) {
      const word = WORDS[Math.floor(random() * WORDS.length)]!;
      const roll = random();
      const piece = roll < 0.06 ? `${word}\n` : roll < 0.07 ? `${word}\n\t` : word;
      words.push(piece);
      length += piece.length + 1;
    }
    this.pool = words.join(' ');
  }

  /** About `length` characters. */
  take(length: number): string {
    const wanted = Math.max(1, Math.floor(length));
    if (wanted >= this.pool.length) return this.pool.repeat(Math.ceil(wanted / this.pool.length)).slice(0, wanted);
    const start = Math.floor(this.random() * (this.pool.length - wanted));
    return this.pool.slice(start, start + wanted);
  }

  /** A file name-like word. */
  name(): string {
    return this.take(24).replace(/[^A-Za-z]/g, '').slice(0, 12) || 'index';
  }
}

export function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|KiB|MiB|GiB)?$/i.exec(text.trim());
  if (!match) throw new Error(`not a size: ${JSON.stringify(text)} (try 20MB, 200MB or 1GB)`);
  const units: Record<string, number> = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1 << 20, gib: 1 << 30 };
  return Math.round(Number(match[1]) * units[(match[2] ?? 'B').toLowerCase()]!);
}

export function generateCorpus(options: CorpusOptions): CorpusSummary {
  if (!(options.bytes > 0)) throw new Error(`generateCorpus: bytes must be above 0, not ${options.bytes}`);
  if (fs.existsSync(options.out) && fs.readdirSync(options.out).length > 0) {
    throw new Error(`generateCorpus: ${options.out} is not empty; remove it first (the output must hold nothing but the corpus)`);
  }
  const random = randomSource(options.seed);
  const text = new Text(random);
  const between = (low: number, high: number): number => low + random() * (high - low);
  const logBetween = (low: number, high: number): number => Math.exp(between(Math.log(low), Math.log(high)));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

  let written = 0;
  let files = 0;
  let largestFile = 0;
  const counted = (size: number): void => {
    written += size;
    files++;
    largestFile = Math.max(largestFile, size);
  };
  const writeWhole = (relative: string, content: string): void => {
    const target = path.join(options.out, relative);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, content);
    counted(Buffer.byteLength(content));
  };

  /** A transcript written to disk as it grows. */
  class TranscriptFile {
    private readonly descriptor: number;
    private flushed = 0;
    constructor(
      relative: string,
      readonly t: Transcript,
    ) {
      const target = path.join(options.out, relative);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      this.descriptor = fs.openSync(target, 'w');
    }
    /** Bytes of the whole corpus, counting what this file holds so far. */
    get corpusBytes(): number {
      return written + this.t.bytes;
    }
    maybeFlush(): void {
      if (this.t.bytes - this.flushed >= WRITE_PIECE) this.flush();
    }
    private flush(): void {
      fs.writeSync(this.descriptor, this.t.drain());
      this.flushed = this.t.bytes;
    }
    close(): void {
      this.flush();
      fs.closeSync(this.descriptor);
      counted(this.t.bytes);
    }
  }

  // The ~1.2 MB lines sit at fixed points of the byte count.
  let nextHugeLine = Math.min(HUGE_LINE_EVERY / 2, Math.floor(options.bytes / 2));

  /** Payload size of one tool result, in characters: what decides the line's size. */
  const resultSize = (): number => (random() < 0.03 ? between(20_000, 200_000) : logBetween(200, 4_000));
  /** True when the next tool result should be one of the ~1.2 MB lines. */
  const hugeLineDue = (file: TranscriptFile): boolean => {
    if (file.corpusBytes < nextHugeLine) return false;
    nextHugeLine += HUGE_LINE_EVERY;
    return true;
  };

  interface Child {
    readonly agent: string;
    readonly toolUseId: string;
    readonly description: string;
    readonly summary: string;
  }

  /** One tool call's result in a main transcript, with the toolUseResult shape of its tool. */
  const mainResult = (t: Transcript, call: { id: string; name: string; fragment: string; path: string; child?: Child }, size: number): void => {
    if (call.child) {
      const answer = call.child.summary;
      t.result(call.id, call.fragment, [{ type: 'text', text: answer }], {
        toolUseResult: {
          status: 'completed',
          prompt: call.child.description,
          agentId: call.child.agent,
          content: [{ type: 'text', text: answer }],
          totalDurationMs: Math.floor(between(20_000, 600_000)),
          totalTokens: Math.floor(between(5_000, 90_000)),
          totalToolUseCount: Math.floor(between(1, 40)),
          usage: { input_tokens: 12, output_tokens: 900, cache_read_input_tokens: 40_000, cache_creation_input_tokens: 2_000 },
        },
      });
      return;
    }
    if (random() < 0.06) {
      // A failed call: Claude Code stores a bare string as its toolUseResult.
      const message = `Error: ${text.take(between(40, 400))}`;
      t.result(call.id, call.fragment, message, { isError: true, toolUseResult: message });
      return;
    }
    switch (call.name) {
      case 'Read': {
        if (random() < 0.01) {
          const image = imageBlock(Math.floor(Math.min(size, 60_000) * 0.75));
          t.result(call.id, call.fragment, [image], { toolUseResult: { type: 'image', file: { type: 'image/png', originalSize: Math.floor(size) } } });
          return;
        }
        const content = text.take(size / 2);
        const lines = content.split('\n').length;
        t.result(call.id, call.fragment, content, { toolUseResult: { type: 'text', file: { filePath: call.path, content, numLines: lines, startLine: 1, totalLines: lines } } });
        return;
      }
      case 'Grep': {
        const content = text.take(size / 2);
        t.result(call.id, call.fragment, content, { toolUseResult: { mode: 'content', numFiles: Math.floor(between(1, 30)), filenames: [], content, numLines: content.split('\n').length } });
        return;
      }
      case 'Edit': {
        // The result text is short; the toolUseResult carries the whole file before the edit.
        const oldString = text.take(between(20, 300));
        const newString = text.take(between(20, 300));
        t.result(call.id, call.fragment, `The file ${call.path} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file.`, {
          toolUseResult: {
            filePath: call.path,
            oldString,
            newString,
            originalFile: text.take(size),
            structuredPatch: [{ oldStart: 10, oldLines: 3, newStart: 10, newLines: 4, lines: [`-${oldString}`, `+${newString}`] }],
            userModified: false,
            replaceAll: false,
          },
        });
        return;
      }
      default: {
        const stdout = text.take(size / 2);
        t.result(call.id, call.fragment, stdout, { toolUseResult: { stdout, stderr: '', interrupted: false, isImage: false } });
      }
    }
  };

  /**
   * Turns of conversation until the transcript reaches `budget` bytes: a
   * prompt, a few provider calls with tool calls and their results, and a
   * final answer. A main transcript spawns its children from the first turns.
   */
  const converse = (file: TranscriptFile, budget: number, role: { child: boolean; children?: Child[]; compactEvery?: number }): void => {
    const t = file.t;
    const pendingChildren = [...(role.children ?? [])];
    let nextCompaction = role.compactEvery ?? Infinity;
    let turn = 0;
    while (turn === 0 || t.bytes < budget || pendingChildren.length > 0) {
      turn++;
      if (!role.child || turn > 1) t.prompt(text.take(logBetween(30, 1_500)), { origin: !role.child });
      if (!role.child && random() < 0.25) t.attachment({ type: 'todo_reminder', content: [], itemCount: 0 });
      const steps = budget < 12_000 ? Math.floor(between(0, 2)) : Math.floor(between(1, 6));
      for (let step = 0; step < steps || pendingChildren.length > 0; step++) {
        const child = pendingChildren.shift();
        const count = child ? 1 : random() < 0.15 ? Math.floor(between(2, 4)) : 1;
        const calls = Array.from({ length: count }, () => {
          const id = child?.toolUseId ?? t.nextId('toolu_');
          const name = child ? 'Task' : pick(['Bash', 'Bash', 'Read', 'Read', 'Edit', 'Grep']);
          const filePath = `/home/user/project/src/${text.name()}.ts`;
          const input =
            name === 'Task'
              ? { description: child!.description, prompt: text.take(between(200, 1_500)), subagent_type: 'general-purpose' }
              : name === 'Bash'
                ? { command: text.take(between(10, 120)), description: text.take(between(10, 60)) }
                : name === 'Grep'
                  ? { pattern: text.name(), path: '/home/user/project/src', output_mode: 'content' }
                  : name === 'Edit'
                    ? { file_path: filePath, old_string: text.take(between(20, 200)), new_string: text.take(between(20, 200)) }
                    : { file_path: filePath };
          return { id, name, path: filePath, child, block: toolUseBlock(id, name, input) };
        });
        const blocks = [thinkingBlock(Math.floor(between(200, 2_400))), textBlock(text.take(logBetween(40, 1_200))), ...calls.map((call) => call.block)];
        const fragments = t.call(blocks, { streaming: role.child });
        calls.forEach((call, index) => {
          const fragment = fragments[fragments.length - count + index]!;
          if (!call.child && hugeLineDue(file)) {
            // A command that printed a lot: one line of about 1.2 MB (in a main
            // transcript the output is stored twice, as content and as stdout).
            if (role.child) {
              t.result(call.id, fragment, text.take(1_200_000));
            } else {
              const stdout = text.take(600_000);
              t.result(call.id, fragment, stdout, { toolUseResult: { stdout, stderr: '', interrupted: false, isImage: false } });
            }
            return;
          }
          const size = resultSize();
          if (role.child) {
            // Child transcripts mostly carry no toolUseResult.
            const output = text.take(size / 2);
            if (random() < 0.05) t.result(call.id, fragment, output.slice(0, 300), { isError: true, toolUseResult: `Error: ${output.slice(0, 300)}` });
            else t.result(call.id, fragment, output);
          } else {
            mainResult(t, { ...call, fragment }, size);
          }
        });
        file.maybeFlush();
      }
      t.call([thinkingBlock(Math.floor(between(200, 1_200))), textBlock(text.take(logBetween(80, 3_000)))], { streaming: role.child });
      if (!role.child) {
        t.system('turn_duration', '', { durationMs: Math.floor(between(2_000, 400_000)) });
        if (random() < 0.3) t.bookkeeping({ type: 'file-history-snapshot', messageId: t.last, snapshot: { messageId: t.last, trackedFileBackups: {}, timestamp: '2026-03-01T10:00:00.000Z' }, isSnapshotUpdate: false });
        if (random() < 0.2) t.bookkeeping({ type: 'last-prompt', lastPrompt: text.take(80), leafUuid: t.last });
        if (t.bytes >= nextCompaction) {
          const preserved = t.last ? [t.last] : [];
          t.compact(`This session is being continued from a previous conversation that ran out of context. Summary:\n${text.take(between(2_000, 8_000))}`, preserved);
          nextCompaction += role.compactEvery!;
        }
      }
      file.maybeFlush();
    }
  };

  const hex = (...parts: (string | number)[]): string => crypto.createHash('sha256').update(parts.join('/')).digest('hex');

  // No other session comes near the first: at most 8 MB, and at most 4% of a small corpus.
  const largest = Math.max(20_000, Math.min(8_000_000, options.bytes * 0.04));
  let sessions = 0;
  for (let index = 0; written < options.bytes; index++) {
    const session = stableUuid(`corpus:${options.seed}`, index);
    const projectNumber = index === 0 ? 0 : Math.floor(random() * PROJECTS);
    const project = `-home-user-project-${projectNumber}`;
    const cwd = `/home/user/project-${projectNumber}`;
    const remaining = options.bytes - written;
    // The first session is a fifth of the corpus; the rest range from a few
    // kilobytes to several megabytes, log-uniformly, as real histories do.
    const budget = index === 0 ? options.bytes * BIG_SESSION_SHARE : Math.min(remaining, logBetween(3_000, largest));
    const start = new Date(Date.UTC(2026, 0, 1) + index * 3_600_000 * 7).toISOString();
    const withChildren = index === 0 || random() < 0.33;
    const withWorkflow = index % 12 === 5;
    const childShare = withChildren ? 0.25 : 0;
    const workflowShare = withWorkflow ? 0.1 : 0;

    const children: Child[] = [];
    if (withChildren) {
      for (let count = index === 0 ? 6 : Math.floor(between(1, 4)), agentIndex = 0; agentIndex < count; agentIndex++) {
        children.push({
          agent: `a${hex(session, 'agent', agentIndex).slice(0, 16)}`,
          toolUseId: stableId('toolu_', `spawn:${session}`, agentIndex),
          description: text.take(between(15, 50)).replace(/\s+/g, ' '),
          summary: text.take(between(300, 3_000)),
        });
      }
    }

    const main = new TranscriptFile(`${project}/${session}.jsonl`, new Transcript({ session, cwd, start }));
    main.t.bookkeeping({ type: 'permission-mode', permissionMode: 'default' });
    converse(main, budget * (1 - childShare - workflowShare), { child: false, children, compactEvery: budget > 10_000_000 ? 8_000_000 : undefined });
    if (random() < 0.5) main.t.bookkeeping({ type: 'summary', summary: text.take(60), leafUuid: main.t.last });
    main.close();

    for (const child of children) {
      const file = new TranscriptFile(`${project}/${session}/subagents/agent-${child.agent}.jsonl`, new Transcript({ session, cwd, agent: child.agent, start }));
      file.t.prompt(child.description + '\n' + text.take(between(200, 1_500)), { parent: null, origin: false });
      converse(file, (budget * childShare) / children.length, { child: true });
      file.close();
      writeWhole(
        `${project}/${session}/subagents/agent-${child.agent}.meta.json`,
        JSON.stringify({ agentType: 'general-purpose', description: child.description, toolUseId: child.toolUseId, spawnDepth: 1 }),
      );
    }

    if (withWorkflow) {
      const run = `wf_${hex(session, 'run').slice(0, 8)}-${hex(session, 'run').slice(8, 11)}`;
      const label = pick(['review', 'refactor', 'triage', 'release-check']);
      const folder = `${project}/${session}/subagents/workflows/${run}`;
      const journal: string[] = [];
      const agents = Math.floor(between(2, 5));
      for (let agentIndex = 0; agentIndex < agents; agentIndex++) {
        const agent = `a${hex(run, 'agent', agentIndex).slice(0, 16)}`;
        const file = new TranscriptFile(`${folder}/agent-${agent}.jsonl`, new Transcript({ session, cwd, agent, start }));
        file.t.prompt(text.take(between(150, 1_200)), { parent: null, origin: false });
        converse(file, (budget * workflowShare) / agents, { child: true });
        file.close();
        writeWhole(`${folder}/agent-${agent}.meta.json`, JSON.stringify({ agentType: `workflow:${label}`, description: text.take(40), spawnDepth: 1 }));
        const key = `v2:${label}:${agentIndex}`;
        journal.push(JSON.stringify({ type: 'started', key, agentId: agent, at: start }));
        journal.push(JSON.stringify({ type: 'result', key, agentId: agent, result: { status: 'completed', output: text.take(between(100, 2_000)) }, at: start }));
      }
      writeWhole(`${folder}/journal.jsonl`, journal.map((line) => `${line}\n`).join(''));
      writeWhole(
        `${project}/${session}/workflows/${run}.json`,
        `${JSON.stringify({ runId: run, workflowName: label, status: 'completed', startedAt: start, durationMs: Math.floor(between(30_000, 900_000)), agents }, null, 2)}\n`,
      );
      writeWhole(
        `${project}/${session}/workflows/scripts/${label}-${run}.js`,
        `// ${label}\nexport default async function run({ agent }) {\n  const results = [];\n  // ${text.take(120).replace(/\n/g, ' ')}\n  for (let i = 0; i < ${agents}; i++) results.push(await agent(\`step \${i}\`));\n  return results;\n}\n`,
      );
    }
    sessions++;
  }
  return { files, bytes: written, sessions, largestFile };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argument = (name: string, fallback?: string): string => {
    const at = process.argv.indexOf(`--${name}`);
    const value = at >= 0 ? process.argv[at + 1] : fallback;
    if (value === undefined) {
      process.stderr.write(`usage: node --import tsx scripts/generate-corpus.ts --out DIR --bytes SIZE [--seed SEED]\n  --${name} is missing\n`);
      process.exit(2);
    }
    return value;
  };
  const out = path.resolve(argument('out'));
  const started = performance.now();
  const summary = generateCorpus({ out, bytes: parseSize(argument('bytes')), seed: argument('seed', '1') });
  process.stdout.write(`${JSON.stringify({ out, ...summary, ms: Math.round(performance.now() - started) })}\n`);
}
