import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { discoverSessions } from '../../../src/adapters/claude-code/discover.ts';
import { projectFolderName, sessionMatcher } from '../../../src/adapters/claude-code/filters.ts';
import { agentFileName, scriptName } from '../../../src/adapters/claude-code/identifiers.ts';
import { SourceRootError } from '../../../src/adapters/adapter.ts';
import { resolveSourceRoot, SAMPLE_ROOT } from '../../../src/adapters/claude-code/source-root.ts';
import { FIXTURE_AGENTS, FIXTURE_RUN, FIXTURE_SESSIONS } from '../../../scripts/write-fixtures.ts';
import { collectOnce, copyOfFixtures, landedOf, temporaryFolder } from '../../helpers.ts';

describe('discovery', () => {
  const discovery = discoverSessions(copyOfFixtures({ forFile: true }));
  const session = (id: string) => discovery.sessions.find((candidate) => candidate.id === id)!;

  it('finds every fixture session by its id, case kept, and nothing that is not a session', () => {
    expect(discovery.sessions.map((found) => found.id).sort()).toEqual(Object.values(FIXTURE_SESSIONS).sort());
    expect(session(FIXTURE_SESSIONS.legacyAgents).id).toMatch(/^[0-9A-F-]+$/);
    expect(discovery.warnings).toEqual([]);
  });

  it('unions a session across project folders, keyed on the folder of its main transcript', () => {
    const workflow = session(FIXTURE_SESSIONS.workflow);
    expect(workflow.primary).toBe('-home-user-fixtures-workflow');
    expect(workflow.folders).toEqual(['-home-user-fixtures-workflow', '-home-user-fixtures-workflow-scratch']);
    expect(workflow.sources.map((source) => [source.kind, source.nature, source.place.type === 'run' ? source.place.run : source.place.stream]).sort()).toEqual(
      [
        ['transcript', 'append', 'main'],
        ['transcript', 'append', FIXTURE_AGENTS.workflowFirst],
        ['transcript', 'append', FIXTURE_AGENTS.workflowSecond],
        ['agent_meta', 'snapshot', FIXTURE_AGENTS.workflowFirst],
        ['agent_meta', 'snapshot', FIXTURE_AGENTS.workflowSecond],
        ['journal', 'append', FIXTURE_RUN],
        ['workflow_manifest', 'snapshot', FIXTURE_RUN],
        ['workflow_script', 'snapshot', FIXTURE_RUN],
        ['workflow_script', 'snapshot', FIXTURE_RUN],
      ].sort(),
    );
  });

  it('keeps a session whose main transcript was pruned, and skips memory/', () => {
    const pruned = session(FIXTURE_SESSIONS.prunedMain);
    expect(pruned.primary).toBeUndefined();
    expect(pruned.sources.map((source) => source.relative)).toEqual([
      `-home-user-fixtures-pruned-main/${FIXTURE_SESSIONS.prunedMain}/subagents/agent-${FIXTURE_AGENTS.prunedOnly}.jsonl`,
      `-home-user-fixtures-pruned-main/${FIXTURE_SESSIONS.prunedMain}/subagents/agent-${FIXTURE_AGENTS.prunedOnly}.meta.json`,
    ]);
  });

  it('finds a project-level child of an older version by the session its records name', () => {
    const legacy = session(FIXTURE_SESSIONS.legacyAgents);
    expect(legacy.sources.map((source) => [source.relative, source.place])).toEqual([
      [`-home-user-fixtures-legacy-agents/${FIXTURE_SESSIONS.legacyAgents}.jsonl`, { type: 'stream', stream: 'main' }],
      [`-home-user-fixtures-legacy-agents/agent-${FIXTURE_AGENTS.legacy}.jsonl`, { type: 'stream', stream: FIXTURE_AGENTS.legacy }],
    ]);
  });

  it('reports a project-level child whose records name no session instead of guessing', () => {
    const root = path.join(temporaryFolder(), 'projects');
    fs.mkdirSync(path.join(root, 'p'), { recursive: true });
    fs.writeFileSync(path.join(root, 'p', 'agent-1234abcd.jsonl'), '{"type":"user"}\n');
    expect(discoverSessions(root).warnings).toEqual(['p/agent-1234abcd.jsonl: a project-level child transcript whose records name no session; it was not collected']);
  });

  it('names a transcript whose file name is not a session id, rather than leaving it out in silence', () => {
    const root = path.join(temporaryFolder(), 'projects');
    fs.mkdirSync(path.join(root, 'p'), { recursive: true });
    fs.writeFileSync(path.join(root, 'p', 'session_b.jsonl'), '{"type":"user"}\n');
    fs.writeFileSync(path.join(root, 'p', 'notes.txt'), 'not a transcript\n');
    expect(discoverSessions(root).warnings).toEqual(['p/session_b.jsonl: a transcript whose name is not a session id (as <session-id>.jsonl); it was not collected']);
  });

  it('follows symbolic links to transcripts, session folders and project folders, and names a link to nothing', () => {
    const fixtures = copyOfFixtures({ forFile: true });
    const elsewhere = path.join(temporaryFolder(), 'elsewhere');
    fs.cpSync(fixtures, elsewhere, { recursive: true });
    const root = path.join(temporaryFolder(), 'projects');
    fs.mkdirSync(path.join(root, 'linked-files'), { recursive: true });
    // The workflow session: its main transcript and session folder linked one by one, its second folder linked whole.
    const workflowFolder = path.join(elsewhere, '-home-user-fixtures-workflow');
    for (const name of fs.readdirSync(workflowFolder)) fs.symlinkSync(path.join(workflowFolder, name), path.join(root, 'linked-files', name));
    fs.symlinkSync(path.join(elsewhere, '-home-user-fixtures-workflow-scratch'), path.join(root, 'linked-project'));
    fs.symlinkSync(path.join(elsewhere, 'gone.jsonl'), path.join(root, 'linked-files', `${FIXTURE_SESSIONS.prunedMain}.jsonl`));
    const linked = discoverSessions(root);
    const copied = discoverSessions(fixtures).sessions.find(({ id }) => id === FIXTURE_SESSIONS.workflow)!;
    const workflow = linked.sessions.find(({ id }) => id === FIXTURE_SESSIONS.workflow)!;
    expect(workflow.sources.map(({ kind, place }) => [kind, place]).sort()).toEqual(copied.sources.map(({ kind, place }) => [kind, place]).sort());
    expect(linked.warnings).toEqual([`linked-files/${FIXTURE_SESSIONS.prunedMain}.jsonl: a symbolic link to nothing; it was not collected`]);
  });
});

describe('file names', () => {
  it('splits a script name on the last -wf_, since a run id has hyphens of its own', () => {
    expect(scriptName('review-wf_notes-wf_afa31e47-f6c.js')).toEqual({ label: 'review-wf_notes', run: 'wf_afa31e47-f6c' });
    expect(scriptName('plain.js')).toBeUndefined();
    expect(scriptName('x-wf_.js')).toBeUndefined();
  });

  it('accepts the agent id shapes the corpus shows, and refuses unsafe ones', () => {
    for (const id of ['afdc6064f2f8dcb06', 'a2271d1', '3ea04571', 'acompact-946d2b']) expect(agentFileName(`agent-${id}.jsonl`)).toEqual({ agent: id, type: 'transcript' });
    expect(agentFileName('agent-a1.meta.json')).toEqual({ agent: 'a1', type: 'meta' });
    for (const name of ['agent-.jsonl', 'agent-main.jsonl', 'agent-../x.jsonl', 'agent-a b.jsonl', 'other.jsonl']) expect(agentFileName(name)).toBeUndefined();
  });
});

describe('filters, per session', () => {
  it('match the primary folder, a real path converted forward, or the session id', () => {
    const session = { id: 'abc', folders: ['-Users-me-my-app', '-private-tmp-scratch'], primary: '-Users-me-my-app' };
    expect(projectFolderName('/Users/me/my.app')).toBe('-Users-me-my-app');
    expect(sessionMatcher({ include: ['/Users/me/my.app'], exclude: [] })(session)).toBe(true);
    expect(sessionMatcher({ include: ['*other*'], exclude: [] })(session)).toBe(false);
    expect(sessionMatcher({ include: ['abc'], exclude: [] })(session)).toBe(true);
    // A child stream filed under a scratch folder does not exclude the conversation.
    expect(sessionMatcher({ include: [], exclude: ['/private/tmp/**'] })(session)).toBe(true);
    expect(sessionMatcher({ include: [], exclude: ['-Users-me-*'] })(session)).toBe(false);
    // With the main transcript pruned there is no primary folder, so every folder counts.
    expect(sessionMatcher({ include: [], exclude: ['/private/tmp/**'] })({ ...session, primary: undefined })).toBe(false);
  });

  it('leave an excluded session untouched while the rest are collected', () => {
    const data = temporaryFolder();
    collectOnce(copyOfFixtures(), data, { exclude: ['*-rewind'] });
    expect(landedOf(data, FIXTURE_SESSIONS.rewind)).toEqual([]);
    expect(fs.existsSync(path.join(data, FIXTURE_SESSIONS.rewind))).toBe(false);
    expect(landedOf(data, FIXTURE_SESSIONS.compaction).length).toBe(1);
  });
});

describe('the source root', () => {
  it('is --source, then $CLAUDE_CONFIG_DIR/projects, then $XDG_CONFIG_HOME/claude/projects, then ~/.claude/projects, then the sample', () => {
    const base = temporaryFolder();
    const make = (...parts: string[]): string => {
      const folder = path.join(base, ...parts);
      fs.mkdirSync(path.join(folder, '-home-me-project'), { recursive: true });
      fs.writeFileSync(path.join(folder, '-home-me-project', 'session.jsonl'), '');
      return folder;
    };
    const home = path.join(base, 'home');
    const environment: NodeJS.ProcessEnv = { HOME: home, CLAUDE_CONFIG_DIR: path.join(base, 'config'), XDG_CONFIG_HOME: path.join(base, 'xdg') };
    expect(resolveSourceRoot(undefined, environment)).toEqual({ root: SAMPLE_ROOT, origin: 'sample' });
    // A history folder with no file in it, as Claude Code leaves it before any session, is no history.
    fs.mkdirSync(path.join(home, '.claude', 'projects', '-home-me-project'), { recursive: true });
    expect(resolveSourceRoot(undefined, environment)).toEqual({ root: SAMPLE_ROOT, origin: 'sample' });
    const fromHome = make('home', '.claude', 'projects');
    expect(resolveSourceRoot(undefined, environment)).toEqual({ root: fromHome, origin: 'home' });
    const fromXdg = make('xdg', 'claude', 'projects');
    expect(resolveSourceRoot(undefined, environment)).toEqual({ root: fromXdg, origin: 'XDG_CONFIG_HOME' });
    const fromConfig = make('config', 'projects');
    expect(resolveSourceRoot(undefined, environment)).toEqual({ root: fromConfig, origin: 'CLAUDE_CONFIG_DIR' });
    const explicit = make('mine');
    expect(resolveSourceRoot(explicit, environment)).toEqual({ root: explicit, origin: 'option' });
    expect(() => resolveSourceRoot(path.join(base, 'missing'), environment)).toThrow(SourceRootError);
    expect(fs.existsSync(SAMPLE_ROOT)).toBe(true);
  });
});
