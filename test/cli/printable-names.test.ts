// Names from outside (a project folder's, a tool's, a model's, a git
// branch's, a path in an export) reach the terminal with every character a
// terminal acts on shown escaped, in every command's output for a person;
// --json output stays exact JSON of the exact names.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stableUuid, textBlock, toolUseBlock, Transcript } from '../../scripts/claude-code-records.ts';
import { temporaryFolder } from '../helpers.ts';
import { sessionizer } from './launcher.ts';

/** A project folder's name that sets the window's title, turns the text red, hides a line break and a carriage return, and reverses what follows. */
const HOSTILE = '-home-\u001b]0;pwned\u0007-\u001b[31mred\n\rline\u202egnp.exe\u0085\u009b2J';
const SHOWN = '-home-\\u001b]0;pwned\\u0007-\\u001b[31mred\\u000a\\u000dline\\u202egnp.exe\\u0085\\u009b2J';

/** Whatever in `output` a terminal would act on, but the newlines that end its lines. */
function unsafeIn(output: string): string[] {
  return [...output.replaceAll('\n', '').matchAll(/[\p{Cc}\p{Bidi_Control}\u2028\u2029]/gu)].map((match) => JSON.stringify(match[0]));
}

describe('names printed on a terminal', () => {
  it('are escaped in the output of sources, collect, parse, conversation, fork, branches, export and verify, and exact in --json', { timeout: 240_000 }, () => {
    const root = path.join(temporaryFolder(), 'projects');
    const data = temporaryFolder();
    const out = path.join(temporaryFolder(), 'export');
    const session = stableUuid('names printed on a terminal', 1);
    const t = new Transcript({ session, cwd: '/home/\u001b[2Juser' });
    t.prompt('Run a tool named with an escape sequence.');
    const [call] = t.call([toolUseBlock('toolu_escape', '\u001b[31mBash', { command: 'ls' })], { model: 'claude-\u202eopus' });
    t.result('toolu_escape', call!, 'done');
    t.call([textBlock('Done.')]);
    t.raw('not JSON \u001b[2J');
    const transcript = path.join(root, HOSTILE, `${session}.jsonl`);
    fs.mkdirSync(path.dirname(transcript), { recursive: true });
    // A line still being written (no newline yet) is named by export.
    fs.writeFileSync(transcript, `${t.text().replaceAll('"gitBranch":"main"', '"gitBranch":"\\u001b[5mmain"')}{"partial`);

    const said: { command: string; out: string; error: string }[] = [];
    const run = (args: string[], code = 0): { out: string; error: string } => {
      const result = sessionizer(args);
      expect([args[0], result.code, code === 0 ? result.error.split('\n').filter((line) => line.startsWith('error')) : []]).toEqual([args[0], code, []]);
      said.push({ command: args.join(' '), out: result.out, error: result.error });
      return result;
    };
    const listed = run(['sources', '--source', root]);
    expect(listed.out).toContain(`${session}  ${SHOWN}  1 stream`);
    const json = run(['sources', '--source', root, '--json']);
    expect((JSON.parse(json.out) as { sessions: { primary: string }[] }).sessions[0]!.primary).toBe(HOSTILE);
    const collected = run(['collect', '--once', '--source', root, '--data', data]);
    expect(collected.error).toContain(`note: ${SHOWN}/${session}.jsonl:`);
    run(['parse', session, '--data', data]);
    const tree = run(['conversation', session, '--data', data]);
    expect(tree.out).toContain('tool \\u001b[31mBash @1:2');
    expect(tree.out).toContain(`project ${SHOWN} (/home/\\u001b[2Juser)\n`);
    expect(tree.out).toContain('models claude-opus-4-5, claude-\\u202eopus\n');
    expect(tree.out).toContain('git branch \\u001b[5mmain');
    const folded = JSON.parse(run(['conversation', session, '--data', data, '--json']).out) as { models: string[]; git_branches: string[] };
    expect([folded.models, folded.git_branches]).toEqual([['claude-opus-4-5', 'claude-\u202eopus'], ['\u001b[5mmain']]);
    run(['fork', session, '--at', 'root', '--name', 'again', '--reason', 'start \u001b[2J over', '--by', '\u202eactor', '--data', data]);
    const branches = run(['branches', session, '--data', data]);
    expect(branches.out).toContain('by \\u202eactor: start \\u001b[2J over');
    const exported = run(['export', '--source', root, '--data', data, '--out', out]);
    expect(exported.error).toContain(`note: ${session} ${SHOWN}/${session}.jsonl: `);
    fs.writeFileSync(path.join(out, 'stray \u001b[31m\u202efile'), 'not the export’s\n');
    const verified = run(['verify', out], 1);
    expect(verified.error).toContain('error: stray \\u001b[31m\\u202efile: extra: the manifest does not list it\n');

    for (const { command, out: printed, error } of said) expect([command, unsafeIn(printed), unsafeIn(error)]).toEqual([command, [], []]);
  });
});
