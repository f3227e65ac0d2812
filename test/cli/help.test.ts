// Every command's help and usage errors come from its declared options: each
// option is listed with its line, each command has an example, each mistake
// exits 2 naming the option, and docs/commands.md documents every option.

import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS, main } from '../../src/cli/main.ts';
import type { Io } from '../../src/cli/command.ts';

async function run(argv: string[]) {
  let out = '';
  let error = '';
  const io: Io = { out: (text) => (out += text), error: (text) => (error += text), interactive: false };
  const code = await main(argv, io);
  return { code, out, error };
}

describe('the command line', () => {
  it('lists every command with its summary under sessionizer --help', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    for (const command of COMMANDS) expect(out).toMatch(new RegExp(`^  ${command.name} +${escape(command.summary)}$`, 'm'));
  });

  it("prints each command's options, each with its description, and an example under COMMAND --help", async () => {
    for (const command of COMMANDS) {
      for (const flag of ['--help', '-h']) {
        const { code, out } = await run([command.name, flag]);
        expect(code, `${command.name} ${flag}`).toBe(0);
        expect(out).toContain(`usage: sessionizer ${command.synopsis}\n`);
        expect(out).toContain(command.summary);
        for (const [name, option] of Object.entries(command.options)) {
          expect(out, `${command.name} --${name}`).toMatch(new RegExp(`^  --${name}\\b.* ${escape(option.description)}`, 'm'));
        }
        for (const operand of command.operands) expect(out).toMatch(new RegExp(`^  ${operand.name} +${escape(operand.description)}`, 'm'));
        expect(command.examples.length).toBeGreaterThan(0);
        for (const example of command.examples) {
          expect(example.startsWith(`sessionizer ${command.name}`)).toBe(true);
          expect(out).toContain(`\n  ${example}\n`);
        }
      }
    }
  });

  it('exits 2 on an unknown option, naming it, for every command', async () => {
    for (const command of COMMANDS) {
      const { code, error } = await run([command.name, '--frobnicate']);
      expect(code, command.name).toBe(2);
      expect(error).toMatch(new RegExp(`^sessionizer ${command.name}: Unknown option '--frobnicate'`));
      expect(error).toContain(`usage: sessionizer ${command.synopsis}\n`);
    }
  });

  it('exits 2 on an option with its value missing, naming the option, for every option that takes one', async () => {
    for (const command of COMMANDS) {
      for (const [name, option] of Object.entries(command.options)) {
        if (option.type !== 'string') continue;
        const { code, error } = await run([command.name, ...command.operands.filter((operand) => operand.required).map(() => 'x'), `--${name}`]);
        expect(code, `${command.name} --${name}`).toBe(2);
        expect(error).toMatch(new RegExp(`^sessionizer ${command.name}: Option '--${name} <value>' argument missing`));
      }
    }
  });

  it('exits 2 on a malformed value, a value given to a switch, a missing operand or a missing required option, naming it', async () => {
    const cases: [string[], RegExp][] = [
      [['conversation', 'x', '--terms', 'neither'], /^sessionizer conversation: --terms is unified, native or both, not "neither"\n/],
      [['collect', '--interval', 'soon'], /^sessionizer collect: --interval must be a number of seconds above 0, not "soon"\n/],
      [['glossary', '--json=yes'], /^sessionizer glossary: Option '--json' does not take an argument/],
      [['verify'], /^sessionizer verify: PATH is missing\n/],
      [['branches'], /^sessionizer branches: ID is missing\n/],
      [['fork', 'x'], /^sessionizer fork: --at EVENT is missing\n/],
      [['restore', 'x', '--branch', 'b'], /^sessionizer restore: --out DIR is missing\n/],
      [['label', 'x'], /^sessionizer label: --branch NAME is missing\n/],
      [['glossary', 'extra'], /^sessionizer glossary: unexpected argument "extra"\n/],
    ];
    for (const [argv, message] of cases) {
      const { code, error } = await run(argv);
      expect(code, argv.join(' ')).toBe(2);
      expect(error).toMatch(message);
    }
  });

  it('documents every command and every declared option in docs/commands.md', () => {
    const documented = fs.readFileSync(fileURLToPath(new URL('../../docs/commands.md', import.meta.url)), 'utf8');
    const sections = new Map(documented.split(/^## /m).slice(1).map((section) => [/^`sessionizer (\S+)/.exec(section)?.[1], section] as const));
    for (const command of COMMANDS) {
      const section = sections.get(command.name);
      expect(section, `a section "## \`sessionizer ${command.name} …\`" in docs/commands.md`).toBeDefined();
      for (const name of Object.keys(command.options)) expect(section, `docs/commands.md: ${command.name} --${name}`).toMatch(new RegExp(`\`--${name}\\b`));
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
