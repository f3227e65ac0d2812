// Names a transcript supplies (a fence's language, a file's extension, a
// tool's, a model's, an agent's, a record's type, a git branch, a JSON key)
// are data: none of them may find a property of an object's prototype. An
// export of a transcript full of such names completes, and shows the code of
// a language nobody knows as plain text.

import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stableUuid, textBlock, toolUseBlock, Transcript } from '../../scripts/claude-code-records.ts';
import { describeClaudeCodeTool } from '../../src/adapters/claude-code/tools.ts';
import { termFor } from '../../src/adapters/claude-code/glossary.ts';
import { textOf } from '../../src/files/json-text.ts';
import { languageOfPath } from '../../src/site/models/languages.ts';
import { sessionizer } from '../cli/launcher.ts';
import { temporaryFolder } from '../helpers.ts';

/** Names every plain object answers to through its prototype. */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'] as const;

/** A JSON object that holds `__proto__` as a field of its own, as JSON.parse makes it from a transcript line. */
function withOwnProto(json: string): Record<string, unknown> {
  return JSON.parse(json) as Record<string, unknown>;
}

/** A project folder with one session, and its child agent named `constructor`, whose every name is one of an object's prototype. */
function writeTranscript(root: string): string {
  const session = stableUuid('names from the prototype', 1);
  const t = new Transcript({ session, cwd: '/home/user/__proto__' });
  t.prompt('Show code in languages named after the prototype.');
  // One fence per name, each holding a line that says which it is.
  t.call([textBlock([...PROTOTYPE_NAMES.map((name) => `\`\`\`${name}\nfence of ${name} <kept>\n\`\`\``), '```js\nconst known = "a language shiki knows";\n```'].join('\n\n'))], { model: 'constructor' });
  let counter = 0;
  for (const file of ['x.constructor', 'x.__proto__', '__proto__', 'constructor.js', 'x.toString', 'x.hasOwnProperty', 'x.valueOf']) {
    const where = `/home/user/__proto__/${file}`;
    const content = `content of ${file} <kept>\n`;
    const write = `toolu_write${counter}`;
    const [writeCall] = t.call([toolUseBlock(write, 'Write', { file_path: where, content })], { model: '__proto__' });
    t.result(write, writeCall!, `File created successfully at: ${where}`, { toolUseResult: { type: 'create', filePath: where, content } });
    const read = `toolu_read${counter}`;
    const [readCall] = t.call([toolUseBlock(read, 'Read', { file_path: where })], { model: 'toString' });
    t.result(read, readCall!, `     1\t${content}`, { toolUseResult: { type: 'text', file: { filePath: where, content, numLines: 1, startLine: 1, totalLines: 1 } } });
    const edit = `toolu_edit${counter}`;
    const [editCall] = t.call([toolUseBlock(edit, 'Edit', { file_path: where, old_string: 'content', new_string: 'contents' })], { model: 'hasOwnProperty' });
    t.result(edit, editCall!, `The file ${where} has been updated.`);
    counter++;
  }
  // Tools named after the prototype, with inputs whose keys are too.
  for (const name of [...PROTOTYPE_NAMES, 'mcp__constructor__toString']) {
    const id = `toolu_named${counter++}`;
    const [call] = t.call([toolUseBlock(id, name, withOwnProto('{"__proto__":{"polluted":"input"},"constructor":"input of a tool","toString":"x"}'))]);
    t.result(id, call!, [{ type: '__proto__', text: 'a block of an unknown type' }], { toolUseResult: withOwnProto('{"__proto__":{"polluted":"result"},"valueOf":1}') });
  }
  const todo = 'toolu_todo';
  const [todoCall] = t.call([toolUseBlock(todo, 'TodoWrite', { todos: [{ content: 'a todo whose state is constructor', status: 'constructor' }, { content: 'one whose state is __proto__', status: '__proto__' }] })]);
  t.result(todo, todoCall!, 'Todos have been modified successfully.');
  // A child agent named constructor, started by a Task call.
  const agent = 'constructor';
  const task = 'toolu_task';
  const [taskCall] = t.call([toolUseBlock(task, 'Task', { description: 'An agent named constructor', prompt: 'Say hello.' })]);
  const child = new Transcript({ session, agent, cwd: '/home/user/__proto__' });
  child.prompt('Say hello.', { parent: null, origin: false });
  child.call([textBlock('```valueOf\nhello from the agent <kept>\n```')], { streaming: true, model: 'valueOf' });
  t.result(task, taskCall!, [textBlock('hello')], { toolUseResult: { status: 'completed', agentId: agent, content: [textBlock('hello')], totalTokens: 10 } });
  // Records whose types, subtypes and fields are the prototype's names.
  t.system('constructor', 'a system record of subtype constructor');
  t.attachment({ type: '__proto__', content: 'an attachment of type __proto__' });
  t.bookkeeping(withOwnProto('{"type":"constructor","__proto__":{"polluted":"record"},"toString":"a field of a record"}'));
  t.bookkeeping({ type: '__proto__', leafUuid: t.last });
  t.call([textBlock('Done.')], { model: 'valueOf', usage: withOwnProto('{"input_tokens":5,"output_tokens":1,"__proto__":{"input_tokens":1000}}') as never });
  const project = path.join(root, '-home-user---proto--');
  fs.mkdirSync(path.join(project, session, 'subagents'), { recursive: true });
  // Each record names the git branch it was made on: here, names of the prototype too.
  fs.writeFileSync(path.join(project, `${session}.jsonl`), t.text().replaceAll('"gitBranch":"main"', '"gitBranch":"__proto__"'));
  fs.writeFileSync(path.join(project, session, 'subagents', `agent-${agent}.jsonl`), child.text().replaceAll('"gitBranch":"main"', '"gitBranch":"constructor"'));
  fs.writeFileSync(path.join(project, session, 'subagents', `agent-${agent}.meta.json`), JSON.stringify({ agentType: 'constructor', description: 'An agent named constructor', toolUseId: task, spawnDepth: 1 }));
  return session;
}

describe('names a transcript supplies', () => {
  it('are never looked up through an object prototype: the language of a file, a todo state, a glossary term, a key of a record', () => {
    for (const name of PROTOTYPE_NAMES) {
      expect(languageOfPath(`/home/user/x.${name.toLowerCase()}`)).toBe(name.toLowerCase());
      expect(termFor(name, 'native')).toBe(name);
      expect(termFor(name, 'both')).toBe(name);
      expect(describeClaudeCodeTool(name, { command: 'ls' })).toEqual({ kind: 'other', rest: { command: 'ls' } });
    }
    const todos = describeClaudeCodeTool('TodoWrite', { todos: PROTOTYPE_NAMES.map((status) => ({ content: status, status })) });
    expect(todos.todos?.map((todo) => todo.state)).toEqual(PROTOTYPE_NAMES.map(() => 'pending'));
    // A record's own `__proto__` field survives a copy: its strings turned to text, say.
    const record = withOwnProto('{"\u00c3\u00a9":"\u00c3\u00a9","__proto__":{"polluted":"\u00c3\u00a9"},"after":1}');
    const copied = textOf(record);
    expect(JSON.stringify(copied)).toBe('{"é":"é","__proto__":{"polluted":"é"},"after":1}');
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
  });

  it('complete an export, with the code of an unknown language shown as plain text', { timeout: 240_000 }, () => {
    const root = path.join(temporaryFolder(), 'projects');
    const data = temporaryFolder();
    const out = path.join(temporaryFolder(), 'export');
    const session = writeTranscript(root);
    const exported = sessionizer(['export', '--source', root, '--data', data, '--out', out, '--json']);
    expect(exported.error).not.toMatch(/\n\s+at /);
    expect(exported.code).toBe(0);
    expect((JSON.parse(exported.out) as { conversations: number }).conversations).toBe(1);
    expect(sessionizer(['verify', out]).code).toBe(0);

    const page = fs.readFileSync(path.join(out, 'site', 'c', `${session}.html`), 'utf8');
    const shows = (html: string, text: string): void => expect(html.includes(text), `the page shows ${text}`).toBe(true);
    // Nothing of a prototype is shown: a function's source, or an object's name for itself.
    expect(/native code|\[object |function Object/.exec(page)?.[0]).toBeUndefined();
    // Each fence's text, escaped and whole in one piece: not split into highlighted tokens.
    for (const name of PROTOTYPE_NAMES) shows(page, `<pre class="code" data-language="${name}" data-highlight="when-shown">fence of ${name} &lt;kept&gt;</pre>`);
    for (const file of ['x.constructor', 'x.__proto__', '__proto__', 'x.toString', 'x.hasOwnProperty', 'x.valueOf']) shows(page, `content of ${file} &lt;kept&gt;`);
    // Code in a language shiki knows is left for the browser to highlight when it is shown, in the reply and in a closed card alike.
    shows(page, '<pre class="code" data-language="js" data-highlight="when-shown">const known = &quot;a language shiki knows&quot;;');
    shows(page, '<pre class="code" data-language="js" data-highlight="when-shown">content of constructor.js &lt;kept&gt;');
    for (const name of [...PROTOTYPE_NAMES, 'mcp__constructor__toString']) shows(page, `<span class="tool-name">${name}</span>`);
    shows(page, '<li class="todo-pending"><span class="check" aria-label="pending">☐</span> a todo whose state is constructor</li>');
    const childPage = path.join(out, 'site', 's', `${session}--constructor.html`);
    shows(fs.readFileSync(childPage, 'utf8'), '<pre class="code" data-language="valueOf" data-highlight="when-shown">hello from the agent &lt;kept&gt;</pre>');

    // A record's own `__proto__` field is content like any other: the .sd keeps it.
    const streams = path.join(out, 'bundle', session, 'streams');
    const derived = fs.readdirSync(path.join(streams, 'main')).filter((name) => name.endsWith('.sd')).map((name) => fs.readFileSync(path.join(streams, 'main', name), 'utf8')).join('');
    expect(derived).toContain('"__proto__":{"polluted":"record"}');
    expect(derived).toContain('"__proto__":{"polluted":"input"}');
    expect(fs.readdirSync(streams).sort()).toEqual(['constructor', 'main']);
  });
});
