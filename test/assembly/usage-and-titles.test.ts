// Usage as observed, and what a conversation is called, where and with which
// models, on the fixtures written for them (fixture numbers 201-299).

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMAND_FIRST_PROMPT, FIXTURE_SESSIONS, MARKDOWN_PROMPT, SUMMARY_ELSEWHERE } from '../../scripts/write-fixtures.ts';
import { nameConversation, TITLE_CHARACTERS, type SummaryElsewhere } from '../../src/assembly/conversation-names.ts';
import { indexEntryOf, loadSessionIndex, type IndexEntry } from '../../src/index/session-index.ts';
import { parseSessionsOnCores } from '../../src/parse/parallel.ts';
import { assemble } from '../../src/parse/structure.ts';
import { PARSER_VERSION, policyOf } from '../../src/assembly/assemble.ts';
import { appendRound } from '../../src/session-flow/chain.ts';
import { verifyAssemblies } from '../../src/verify/chains.ts';
import { verifyExport } from '../../src/verify/export.ts';
import { CONVERTERS, converterFor } from '../../src/adapters/dialects.ts';
import { ruleSet } from '../../src/redaction/rules.ts';
import { scanForSecrets } from '../../src/redaction/scan.ts';
import { writeExport } from '../../src/export/export-folder.ts';
import { parseSession } from '../../src/parse/parse.ts';
import { readChain } from '../../src/session-flow/chain.ts';
import type { FlowNode } from '../../src/model/structure.ts';
import { collectOnce, copyOfFixtures, temporaryFolder } from '../helpers.ts';

const launcher = fileURLToPath(new URL('../../src/cli/sessionizer.mjs', import.meta.url));
let data = '';

beforeAll(() => {
  data = temporaryFolder({ forFile: true });
  collectOnce(copyOfFixtures({ forFile: true }), data);
});

/** The folded conversation's nodes, after a parse. */
function nodesOf(session: string): FlowNode[] {
  parseSession(data, session);
  return [...readChain(data, session).nodes.values()];
}

function sessionAttrs(session: string): Record<string, unknown> {
  return nodesOf(session).find((node) => node.kind === 'session')!.attrs!;
}

describe('usage as observed', () => {
  it('reports an unfinished call’s input and cache tokens, and its last output count as a lower bound', () => {
    const calls = nodesOf(FIXTURE_SESSIONS.unfinishedCall).filter((node) => node.kind === 'llm.call');
    expect(calls.map((call) => [call.attrs!.model, call.attrs!.usage])).toEqual([
      ['claude-sonnet-4-5', { input: 90, output: 12, cache_read: 800, cache_write: 40, output_final: true }],
      ['claude-opus-4-5', { input: 120, output: 7, cache_read: 2000, cache_write: 60, output_final: false }],
    ]);
  });

  it('says which output counts are final, and the title, project and models, in conversation --json and as text', () => {
    parseSession(data, FIXTURE_SESSIONS.unfinishedCall);
    const result = spawnSync(process.execPath, [launcher, 'conversation', FIXTURE_SESSIONS.unfinishedCall, '--data', data, '--json'], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    const folded = JSON.parse(result.stdout) as { models: string[]; project: unknown; git_branches: string[]; title: string; title_source: string; nodes: { kind: string; attrs?: { usage?: { output_final?: boolean } } }[] };
    expect(folded.nodes.filter((node) => node.kind === 'llm.call').map((node) => node.attrs?.usage?.output_final)).toEqual([true, false]);
    expect(folded.models).toEqual(['claude-opus-4-5', 'claude-sonnet-4-5']);
    expect(folded.project).toEqual({ folder: '-home-user-fixtures-unfinished-call', cwd: '/home/user/work/meter' });
    expect([folded.title, folded.title_source]).toEqual(['Count the lines of the parser.', 'first-prompt']);
    expect(folded.git_branches).toEqual(['main']);
    const readable = spawnSync(process.execPath, [launcher, 'conversation', FIXTURE_SESSIONS.unfinishedCall, '--data', data], { encoding: 'utf8' });
    expect(readable.stdout).toContain('\ntitle "Count the lines of the parser." (first-prompt)\nproject -home-user-fixtures-unfinished-call (/home/user/work/meter)\ngit branch main\nmodels claude-opus-4-5, claude-sonnet-4-5\n');
  });
});

describe('git branches', () => {
  it('names every git branch the main stream’s typed prompts and files name, else any stream’s, once each, in the order first named', () => {
    const prompt = (row: number, gitBranch: string | undefined): IndexEntry => ({ seq: 1, row, place: 'main', kind: 'transcript', from: 'person', flags: [], parts: ['text'], calls: [], results: [], prompt: `prompt ${row}`, ...(gitBranch !== undefined ? { gitBranch } : {}) });
    const main = [prompt(1, 'main'), prompt(2, undefined), prompt(3, 'feature/login'), prompt(4, 'main'), prompt(5, 'HEAD')];
    expect(nameConversation(main, main, [prompt(9, 'elsewhere')], []).git_branches).toEqual(['main', 'feature/login', 'HEAD']);
    expect(nameConversation([prompt(1, undefined)], [], [prompt(9, 'elsewhere')], []).git_branches).toEqual(['elsewhere']);
    // A landed file's first row names its branch too, typed prompt or not.
    const first = indexEntryOf(1, 'main', 'transcript', { row: 1, from: 'agent', project: '-home-user-app', git_branch: 'warm-up', parts: [] });
    expect(first.gitBranch).toBe('warm-up');
    expect(indexEntryOf(1, 'main', 'transcript', { row: 2, from: 'agent', git_branch: 'warm-up', parts: [] }).gitBranch).toBeUndefined();
    expect(nameConversation([], [], [first], []).git_branches).toEqual(['warm-up']);
    expect(nameConversation([prompt(1, undefined)], [], [], []).git_branches).toBeUndefined();
  });
});

describe('project', () => {
  it('takes the working directory from a child agent’s file when the main stream names none, not from the folder’s name', () => {
    // An older session's main file can be empty while its child agents' files name the folder.
    const childFirst = indexEntryOf(1, 'agent-7010dafc', 'transcript', { row: 1, from: 'agent', project: '-home-user-review-helper', cwd: '/home/user/review-helper', parts: [{ k: 'text', state: 'available', bytes: 6, text: 'Warmup' }] });
    expect(childFirst.cwd).toBe('/home/user/review-helper');
    expect(indexEntryOf(1, 'agent-7010dafc', 'transcript', { row: 2, from: 'agent', cwd: '/home/user/review-helper', parts: [] }).cwd).toBeUndefined();
    expect(nameConversation([], [], [childFirst], []).project).toEqual({ folder: '-home-user-review-helper', cwd: '/home/user/review-helper' });
    // The main stream's own first row wins over any child's.
    const mainFirst = indexEntryOf(1, 'main', 'transcript', { row: 1, from: 'person', project: '-home-user-review-helper', cwd: '/home/user/review-helper/src', parts: [] });
    expect(nameConversation([mainFirst], [], [childFirst], []).project?.cwd).toBe('/home/user/review-helper/src');
  });
});

describe('titles', () => {
  it('takes a summary only when the leaf it names is on the active branch', () => {
    expect(sessionAttrs(FIXTURE_SESSIONS.summaryTitle)).toMatchObject({ title: 'Haiku about snow', title_source: 'summary' });
  });

  it('prefers the title the person gave to generated titles and summaries', () => {
    expect(sessionAttrs(FIXTURE_SESSIONS.customTitle)).toMatchObject({ title: 'Migration, take two', title_source: 'custom-title' });
  });

  it('takes the latest generated title over a summary', () => {
    expect(sessionAttrs(FIXTURE_SESSIONS.generatedTitle)).toMatchObject({ title: 'Speeding up the type check', title_source: 'ai-title' });
  });

  it('falls back to the first prompt a person typed, past commands and the context the runtime added, on one line and shortened', () => {
    const attrs = sessionAttrs(FIXTURE_SESSIONS.commandFirst);
    const expected = `${Array.from(COMMAND_FIRST_PROMPT.replace(/\s+/g, ' ').trim()).slice(0, TITLE_CHARACTERS).join('').trimEnd()}…`;
    expect(expected.startsWith('Fix the login bug: the session cookie expires too early.')).toBe(true);
    expect(attrs).toMatchObject({ title: expected, title_source: 'first-prompt', project: { folder: '-home-user-fixtures-command-first', cwd: '/home/user/work/login' }, models: ['claude-opus-4-5'] });
  });

  it('takes the words of a first prompt written in markdown, without its marks', () => {
    expect(MARKDOWN_PROMPT.startsWith('## 🔴')).toBe(true);
    expect(sessionAttrs(FIXTURE_SESSIONS.markdownPrompt)).toMatchObject({ title: '🔴 Pre-flight check Read plan.md first, then the guide: 1. build 2. test', title_source: 'first-prompt' });
  });

  it('takes no title from a custom title that is Claude Code’s own caveat, as a fork of a session that opened with one has', () => {
    expect(sessionAttrs(FIXTURE_SESSIONS.caveatForkTitle)).toMatchObject({ title: 'Review the device access dialogue.', title_source: 'first-prompt' });
  });

  it('titles a session in which no prompt was typed by the first slash command the agent answered, with its arguments', () => {
    expect(sessionAttrs(FIXTURE_SESSIONS.slashCommandOnly)).toMatchObject({ title: '/init focus on the audio code', title_source: 'slash-command' });
  });

  it('takes a slash command only when no prompt was typed, one that ran in the runtime alone only when no command was answered', () => {
    const record = (row: number, fields: Partial<IndexEntry>): IndexEntry => ({ seq: 1, row, place: 'streams/main', kind: 'transcript', from: 'person', flags: [], parts: ['text'], calls: [], results: [], ...fields });
    const model = record(1, { command: '/model', flags: ['command'] });
    const output = record(2, { from: 'runtime', flags: ['command'] });
    const init = record(3, { command: '/init', flags: ['command'] });
    const expansion = record(4, { from: 'runtime', flags: ['injected'] });
    const answer = record(5, { from: 'agent', call: 'msg_1' });
    const typed = record(6, { prompt: 'Now fix the **API**.' });
    expect(nameConversation([model, output, init, expansion, answer], [], [], [])).toMatchObject({ title: '/init', title_source: 'slash-command' });
    expect(nameConversation([model, output], [], [], [])).toMatchObject({ title: '/model', title_source: 'slash-command' });
    expect(nameConversation([model, output, init, expansion, answer, typed], [], [], [])).toMatchObject({ title: 'Now fix the API.', title_source: 'first-prompt' });
  });

  it('gives a conversation with no prompt and no title records no title', () => {
    const attrs = sessionAttrs(FIXTURE_SESSIONS.prunedMain);
    expect(attrs.title).toBeUndefined();
    expect(attrs.title_source).toBeUndefined();
  });
});

describe('a summary in another session’s file', () => {
  const target = FIXTURE_SESSIONS.summarisedElsewhere;
  const holder = FIXTURE_SESSIONS.summaryElsewhere;

  /** The fixtures collected into a data folder of their own, the two sessions parsed in one pass, in the order given. */
  async function parsedInOnePass(sessions: string[]): Promise<string> {
    const own = temporaryFolder({ forFile: true });
    collectOnce(copyOfFixtures({ forFile: true }), own);
    await parseSessionsOnCores(own, sessions, { threads: 1 });
    return own;
  }

  const attrsIn = (folder: string, session: string): Record<string, unknown> => [...readChain(folder, session).nodes.values()].find((node) => node.kind === 'session')!.attrs!;

  it('titles the session that holds its leaf, which carries the summary in its round; the holder keeps its own title', async () => {
    for (const order of [[target, holder], [holder, target]]) {
      const folder = await parsedInOnePass(order);
      const attrs = attrsIn(folder, target);
      expect(attrs).toMatchObject({ title: SUMMARY_ELSEWHERE, title_source: 'summary' });
      expect(attrs.summaries_elsewhere).toEqual([{ session: holder, seq: 1, row: 1, leaf: expect.any(String), summary: SUMMARY_ELSEWHERE }]);
      expect(attrsIn(folder, holder)).toMatchObject({ title: 'Now look at the logs.', title_source: 'first-prompt' });
      expect(attrsIn(folder, holder).summaries_elsewhere).toBeUndefined();
    }
  });

  it('keeps the title when its session is parsed again alone, and a pass that finds nothing new appends no round', async () => {
    const folder = await parsedInOnePass([target, holder]);
    const rounds = readChain(folder, target).rounds.length;
    // Another pass: nothing landed, so no session is assembled and none is searched.
    expect((await parseSessionsOnCores(folder, [target, holder], { threads: 1 })).map((outcome) => outcome.unchanged)).toEqual([true, true]);
    // The holder assembled again (its parser's chain moved aside) finds the summary again, which its target carries already.
    expect(readChain(folder, target).rounds.length).toBe(rounds);
    expect(attrsIn(folder, target)).toMatchObject({ title: SUMMARY_ELSEWHERE });
  });

  it('is evidence its conversation’s export carries: exported alone, the conversation verifies and keeps the title', async () => {
    const folder = await parsedInOnePass([holder, target]);
    const out = path.join(temporaryFolder({ forFile: true }), 'export');
    await writeExport(folder, out, [target], { site: false });
    expect((await verifyExport(out, { deep: true, converters: CONVERTERS })).problems).toEqual([]);
    const folded = readChain(path.join(out, 'bundle'), target);
    expect([...folded.nodes.values()].find((node) => node.kind === 'session')!.attrs).toMatchObject({ title: SUMMARY_ELSEWHERE, title_source: 'summary' });
  });

  it('is not carried by a redacted export, which builds its rounds again from its own redacted evidence', { timeout: 60_000 }, async () => {
    const folder = await parsedInOnePass([holder, target]);
    const plan = await scanForSecrets(folder, [target], { rules: ruleSet(), paths: false, converterFor });
    // Nothing in the conversation's own files is a secret: only the summary it carries makes its chain built again.
    expect([...plan.files.values()].filter((file) => file.kind === 'landed')).toEqual([]);
    const out = path.join(temporaryFolder({ forFile: true }), 'export');
    await writeExport(folder, out, [target], { site: false, redaction: plan });
    const attrs = [...readChain(path.join(out, 'bundle'), target).nodes.values()].find((node) => node.kind === 'session')!.attrs!;
    expect(attrs.summaries_elsewhere).toBeUndefined();
    expect(attrs).toMatchObject({ title: 'Why are the cache misses so high?', title_source: 'first-prompt' });
    expect((await verifyExport(out, { deep: true, converters: CONVERTERS })).problems).toEqual([]);
  });

  it('is checked against the evidence of the session that holds it, when that is there', async () => {
    const folder = await parsedInOnePass([holder, target]);
    const index = loadSessionIndex(folder, target);
    const forged: SummaryElsewhere = { session: holder, seq: 1, row: 2, leaf: (attrsIn(folder, target).summaries_elsewhere as SummaryElsewhere[])[0]!.leaf, summary: 'A title no file holds' };
    const structure = assemble(index, { conversation: target, throughSeq: index.throughSeq, summariesElsewhere: [forged] });
    appendRound(folder, { conversation: target, session: target, structure, throughSeq: index.throughSeq, landed: index.files, parser: PARSER_VERSION, policy: policyOf({}) });
    const indexes = new Map([target, holder].map((session) => [session, loadSessionIndex(folder, session)]));
    expect(verifyAssemblies(folder, indexes)).toEqual([{ path: `_conversations/${target}`, what: expect.stringMatching(/carry a summary of record .* from session .* landed sequence 1 row 2, which that session's evidence does not hold/) }]);
  });

  it('counts after the session’s own summaries, and of several, the one whose leaf is furthest along the active branch', () => {
    const record = (row: number, fields: Partial<IndexEntry>): IndexEntry => ({ seq: 1, row, place: 'streams/main', kind: 'transcript', from: 'person', flags: [], parts: ['text'], calls: [], results: [], ...fields });
    const first = record(1, { id: 'a', prompt: 'Start.' });
    const second = record(2, { id: 'b', from: 'agent' });
    const third = record(3, { id: 'c', from: 'agent' });
    const summary = (session: string, leaf: string, text: string): SummaryElsewhere => ({ session, seq: 1, row: 1, leaf, summary: text });
    const path = [first, second, third];
    expect(nameConversation(path, path, [], [], [summary('y', 'c', 'Deeper'), summary('x', 'b', 'Shallower')])).toMatchObject({ title: 'Deeper', title_source: 'summary' });
    expect(nameConversation(path, [first, second], [], [], [summary('y', 'c', 'Off the branch')])).toMatchObject({ title: 'Start.', title_source: 'first-prompt', summaries_elsewhere: [summary('y', 'c', 'Off the branch')] });
    const own = record(4, { title: 'summary', label: 'Its own', leaf: 'b' });
    expect(nameConversation([...path, own], path, [], [], [summary('y', 'c', 'Deeper')])).toMatchObject({ title: 'Its own', title_source: 'summary' });
    // A summary of a record that is not this session's is not carried.
    expect(nameConversation(path, path, [], [], [summary('y', 'z', 'Elsewhere')]).summaries_elsewhere).toBeUndefined();
  });
});
