// The facts the index shows of a conversation, and the search script that
// holds its steps' text, from fixture bundles and without Astro.

import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_AGENTS, FIXTURE_SESSIONS, INDEX_FACTS } from '../../scripts/write-fixtures.ts';
import { loadConversation } from '../../src/site/models/bundle.ts';
import { conversationFacts, cut, duration, gitBranchesShown, modelName, projectGroups, projectOf, streamTitle, timeShown, type ConversationFacts, type IndexedConversation } from '../../src/site/models/facts.ts';
import { planConversation } from '../../src/site/models/plan.ts';
import { compact, counted, tokensShown } from '../../src/site/models/shown-text.ts';
import { writeSearchScript, type SearchScriptData } from '../../src/site/models/search-text.ts';
import { anchorOf, conversationStructure } from '../../src/site/models/streams.ts';
import { subagentNames } from '../../src/site/models/site.ts';
import { exportedSessions, temporaryFolder } from '../helpers.ts';

let bundle: string;
beforeAll(async () => {
  bundle = path.join(await exportedSessions([FIXTURE_SESSIONS.indexFacts, FIXTURE_SESSIONS.rewind, FIXTURE_SESSIONS.nestedAgents, FIXTURE_SESSIONS.empty, FIXTURE_SESSIONS.inlineSidechains], { site: false }), 'bundle');
}, 120_000);

const factsOf = (id: string): ConversationFacts => {
  const conversation = loadConversation(bundle, id);
  return conversationFacts(conversation, conversationStructure(conversation, () => undefined));
};

describe('the facts of a conversation', () => {
  it('takes the first prompt a person typed, past a command and injected context, and the models of the calls', () => {
    const facts = factsOf(FIXTURE_SESSIONS.indexFacts);
    expect(facts.firstPrompt).toBe(INDEX_FACTS.prompt);
    expect(facts.title).toBe(INDEX_FACTS.prompt);
    expect(facts.titleSource).toBe('first-prompt');
    expect(facts.models).toEqual([...INDEX_FACTS.models].sort());
    // The working folder the records name, not the project folder's name read back as a path.
    expect(facts.project).toEqual({ folder: '-home-user-fixtures-index-facts', path: '/home/user/project', named: true });
    expect(facts.tokens?.total).toBeGreaterThan(0);
    expect(facts.tokens?.lowerBound).toBe(false);
    expect(facts.from! < facts.to!).toBe(true);
  });

  it('counts branches besides the active one and subagents, and the prompts of its own pages only', () => {
    // Three prompts in the main stream: two on the active branch, the third ("Make it sadder.") on the other branch's page.
    expect(factsOf(FIXTURE_SESSIONS.rewind)).toMatchObject({ branches: 1, subagents: 0, prompts: 2 });
    expect(factsOf(FIXTURE_SESSIONS.nestedAgents)).toMatchObject({ branches: 0, subagents: Object.keys(FIXTURE_AGENTS).filter((name) => name.startsWith('nested')).length });
  });

  it('says nothing it does not know: no tokens, no time and no prompt for an empty conversation', () => {
    const facts = factsOf(FIXTURE_SESSIONS.empty);
    expect(facts.tokens).toBeUndefined();
    expect(facts.firstPrompt).toBeUndefined();
    expect(facts.from).toBeUndefined();
    expect(facts.title).toBe(`Conversation ${FIXTURE_SESSIONS.empty.slice(0, 8)}`);
  });

  it('names the git branches the session worked on', () => {
    expect(factsOf(FIXTURE_SESSIONS.indexFacts).gitBranches).toEqual(['main']);
    expect(factsOf(FIXTURE_SESSIONS.empty).gitBranches).toEqual([]);
    expect([gitBranchesShown(['main']), gitBranchesShown(['main', 'fix/login']), gitBranchesShown(['a', 'b', 'c', 'd'])]).toEqual(['git branch main', 'git branches main, fix/login', 'git branch d (after 3 others)']);
  });

  it('titles a child stream by the task that started it, else by its first prompt', () => {
    const conversation = loadConversation(bundle, FIXTURE_SESSIONS.nestedAgents);
    const structure = conversationStructure(conversation, () => undefined);
    const titleOf = (name: string): string | undefined => streamTitle(structure.streams.find((stream) => stream.name === name)!, structure, conversation);
    // Started by an Agent call with a description; the grandchild by a Skill call that has none.
    expect(titleOf(FIXTURE_AGENTS.nestedOuter)).toBe('Survey packages');
    expect(titleOf(FIXTURE_AGENTS.nestedInner)).toBe('Summarise each package in one line.');
  });

  it('prefers the project and working folder the session states', () => {
    expect(projectOf({ folder: '-home-ada-my-vault', cwd: '/home/ada/my-vault' }, '-home-ada-my-vault/x.jsonl')).toEqual({ folder: '-home-ada-my-vault', path: '/home/ada/my-vault', named: true });
    expect(projectOf(undefined, '-home-ada-work/x.jsonl')).toEqual({ folder: '-home-ada-work', path: '/home/ada/work' });
    expect(projectOf(undefined, 'x.jsonl')).toBeUndefined();
  });

  it('says how long in words, cuts text at a space and counts tokens in a few characters', () => {
    expect([duration(20_000), duration(5 * 60_000), duration(90 * 60_000), duration(50 * 3_600_000)]).toEqual(['under a minute', '5 min', '1 h 30 min', '2 days 2 h']);
    expect([timeShown('2026-01-04T19:00:01.000Z'), timeShown('2026-01-04T21:00:01+02:00'), timeShown('2026-01-04T19:00:01')]).toEqual(['2026-01-04 19:00 UTC', '2026-01-04 21:00 UTC+02:00', '2026-01-04 19:00']);
    expect(cut('alpha beta gamma delta epsilon', 25)).toBe('alpha beta gamma delta…');
    expect(cut('abcdefghijkl', 5)).toBe('abcd…');
    expect(cut('short', 10)).toBe('short');
    expect([compact(950), compact(1234), compact(45_678), compact(2_800_000), compact(45_000_000)]).toEqual(['950', '1.2k', '46k', '2.8M', '45M']);
  });
});

describe('the index', () => {
  const facts = (project: string | undefined, from: string | undefined, title: string, prompts = 1): ConversationFacts => ({
    title,
    titleSource: 'runtime',
    ...(project ? { project: { folder: project, path: project } } : {}),
    gitBranches: [],
    models: [],
    ...(from ? { from, to: from } : {}),
    prompts,
    branches: 0,
    subagents: 0,
  });

  it('groups by project, the project with the newest activity first, and its newest conversation first', () => {
    const groups = projectGroups([
      { id: 'a', first: 'c/a.html', facts: facts('/old', '2026-01-01T00:00:00Z', 'old one') },
      { id: 'b', first: 'c/b.html', facts: facts('/new', '2026-03-01T00:00:00Z', 'new early') },
      { id: 'c', first: 'c/c.html', facts: facts('/new', '2026-03-05T00:00:00Z', 'new late') },
      { id: 'd', first: 'c/d.html', facts: facts(undefined, undefined, 'nowhere') },
    ]);
    expect(groups.map((group) => [group.name, group.rows.map((row) => row.title)])).toEqual([
      ['/new', ['new late', 'new early']],
      ['/old', ['old one']],
      ['Project not recorded', ['nowhere']],
    ]);
    expect(groups[0]!.rows[0]).toMatchObject({ tokens: '—', counts: [] });
  });

  it('puts a conversation whose records name no working folder in the project its folder’s other conversations all name, not in one of its own', () => {
    const named = (id: string, from: string): IndexedConversation => ({ id, first: `c/${id}.html`, facts: { ...facts(undefined, from, id), project: projectOf({ folder: '-home-ada-my-vault', cwd: '/home/ada/my-vault' }, undefined)! } });
    const unnamed: IndexedConversation = { id: 'c', first: 'c/c.html', facts: { ...facts(undefined, '2026-03-09T00:00:00Z', 'c'), project: projectOf({ folder: '-home-ada-my-vault' }, undefined)! } };
    expect(unnamed.facts.project!.path).toBe('/home/ada/my/vault');
    const groups = projectGroups([named('a', '2026-03-01T00:00:00Z'), unnamed, named('b', '2026-03-02T00:00:00Z')]);
    expect(groups.map((group) => [group.name, group.rows.map((row) => row.title)])).toEqual([['/home/ada/my-vault', ['c', 'b', 'a']]]);
    // Working folders the records name stay projects of their own, in one folder or not.
    const elsewhere: IndexedConversation = { id: 'd', first: 'c/d.html', facts: { ...facts(undefined, '2026-03-03T00:00:00Z', 'd'), project: projectOf({ folder: '-home-ada-my-vault', cwd: '/home/ada/other' }, undefined)! } };
    expect(projectGroups([named('a', '2026-03-01T00:00:00Z'), elsewhere]).map((group) => group.name)).toEqual(['/home/ada/other', '/home/ada/my-vault']);
    // Where a folder's records name two, an unnamed conversation's project is not known: it keeps the folder's name read as a path.
    expect(projectGroups([named('a', '2026-03-01T00:00:00Z'), elsewhere, unnamed]).map((group) => group.name)).toEqual(['/home/ada/my/vault', '/home/ada/other', '/home/ada/my-vault']);
  });

  it('lists the sessions with no turn of their own apart, after the others, and counts them with the project', () => {
    const [group] = projectGroups([
      { id: 'a', first: 'c/a.html', facts: facts('/app', '2026-03-01T00:00:00Z', 'Warmup', 0) },
      { id: 'b', first: 'c/b.html', facts: facts('/app', '2026-02-01T00:00:00Z', 'the real work') },
    ]);
    expect([group!.rows.length + group!.withoutTurns.length, group!.rows.map((row) => row.title), group!.withoutTurns.map((row) => row.title)]).toEqual([2, ['the real work'], ['Warmup']]);
  });

  it('shows a first prompt once: as the title, at the preview’s length, when the title was made from it', () => {
    const prompt = 'Please look at the parser and tell me why the second row of every table is dropped when it starts with a dash.';
    const [fromPrompt, given] = projectGroups([
      { id: 'a', first: 'c/a.html', facts: { ...facts('/a', '2026-03-01T00:00:00Z', cut(prompt, 40)), firstPrompt: prompt } },
      { id: 'b', first: 'c/b.html', facts: { ...facts('/b', '2026-02-01T00:00:00Z', 'Dropped table rows'), firstPrompt: prompt } },
    ]).map((group) => group.rows[0]!);
    expect([fromPrompt!.title, fromPrompt!.firstPrompt]).toEqual([prompt, undefined]);
    expect([given!.title, given!.firstPrompt]).toEqual(['Dropped table rows', prompt]);
  });

  it('shows a model without the release date at the end of its id, and tokens in a few characters', () => {
    expect(modelName('claude-opus-4-5-20251101')).toEqual({ shown: 'claude-opus-4-5', id: 'claude-opus-4-5-20251101' });
    expect(modelName('claude-opus-4-6').shown).toBe('claude-opus-4-6');
    expect(tokensShown({ input: 3, cache_read: 62_559, output: 1 })).toEqual({ shown: '63k tokens in, 1 out', detail: 'input 3, cache read 62,559, cache write not recorded, output 1' });
    expect(tokensShown({ output: 12 })?.shown).toBe('12 out');
    expect(tokensShown({})).toBeUndefined();
    expect([counted(1, 'talk', 'talks'), counted(1200, 'talk', 'talks')]).toEqual(['1 talk', '1,200 talks']);
  });
});

describe('the search script of a conversation', () => {
  it('holds every step’s whole text, linked to the step on its page', () => {
    const conversation = loadConversation(bundle, FIXTURE_SESSIONS.indexFacts);
    const structure = conversationStructure(conversation, () => undefined);
    const plan = planConversation(conversation, structure);
    const file = path.join(temporaryFolder(), 'search.js');
    writeSearchScript(file, conversation, structure, plan.pageOfTalk, plan.summary.facts, subagentNames(structure, conversation));
    const pushed: SearchScriptData[] = [];
    vm.runInNewContext(fs.readFileSync(file, 'utf8'), { window: { SESSIONIZER_SEARCH: { push: (data: SearchScriptData) => pushed.push(data) } } });
    const [data] = pushed;
    expect(data!.t).toBe(INDEX_FACTS.prompt);
    const stepsWith = (word: string) => data!.s.filter(([, , , text]) => typeof text === 'string' && text.includes(word));
    const [deep] = stepsWith(INDEX_FACTS.deepWord);
    expect(deep![2]).toMatch(/^prompt \d+ · reply$/);
    // The whole reply, from its first sentence to the word past its sixtieth.
    expect(deep![3]).toMatch(new RegExp(`^Sentence 1 of .* Sentence 60 of .* The sorting helper is named ${INDEX_FACTS.deepWord} in the old code\\.$`));
    const [input] = stepsWith(INDEX_FACTS.inputWord);
    expect(input![2]).toMatch(/^prompt \d+ · Bash$/);
    expect(input![3]).toContain(INDEX_FACTS.outputWord);
    const tool = [...structure.nodes.values()].find((node) => node.kind === 'tool')!;
    expect(`${data!.u[input![0]]}#${input![1]}`).toBe(`${plan.summary.first}#${anchorOf(tool.id)}`);
  });

  it('names a subagent’s steps by the task of the call that started it, and dates every step', () => {
    const conversation = loadConversation(bundle, FIXTURE_SESSIONS.inlineSidechains);
    const structure = conversationStructure(conversation, () => undefined);
    const plan = planConversation(conversation, structure);
    const file = path.join(temporaryFolder(), 'search.js');
    writeSearchScript(file, conversation, structure, plan.pageOfTalk, plan.summary.facts, subagentNames(structure, conversation));
    const pushed: SearchScriptData[] = [];
    vm.runInNewContext(fs.readFileSync(file, 'utf8'), { window: { SESSIONIZER_SEARCH: { push: (data: SearchScriptData) => pushed.push(data) } } });
    const [data] = pushed;
    // The children of this session are written inline, with no file and no name of their own but `inline-` and a UUID.
    const labels = data!.s.map((step) => step[2]);
    expect(labels).toContain('subagent “Review the parser” · prompt 1 · Read');
    expect(labels).toContain('subagent “Review the printer” · prompt 1 · reply');
    expect(labels.filter((label) => label.includes('inline-'))).toEqual([]);
    // The conversation's start, and each step's time as seconds after it.
    expect(data!.d).toBe(plan.summary.facts.from);
    const read = data!.s.find((step) => step[2] === 'subagent “Review the parser” · prompt 1 · Read')!;
    // The parser's child starts at 10:00:03 and calls Read two records later; the prompt was at 10:00:01.
    expect(read[4]).toBe(4);
    expect(data!.s.every((step) => typeof step[4] === 'number' && step[4] >= 0)).toBe(true);
  });
});
