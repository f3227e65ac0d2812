// The command table: every command, so that --help shows the whole command
// line. Each command declares its own options (command.ts).

import { SourceRootError } from '../adapters/adapter.ts';
import { optimiseLate } from '../cores/optimisation.ts';
import { printableLines } from '../files/printable.ts';
import { isOutOfRoom, refusedWriteCode } from '../files/write-failure.ts';
import { collect } from './commands/collect.ts';
import { sources } from './commands/sources.ts';
import { verify } from './commands/verify.ts';
import { parse } from './commands/parse.ts';
import { conversation } from './commands/conversation.ts';
import { glossary } from './commands/glossary.ts';
import { branches } from './commands/branches.ts';
import { fork, label, restore } from './commands/fork.ts';
import { exportCommand } from './commands/export.ts';
import { EXIT_OK, EXIT_REJECTED, EXIT_USAGE, line, PlaceRefused, UsageError, type Command, type Io } from './command.ts';

export const COMMANDS: readonly Command[] = [sources, collect, parse, conversation, branches, fork, restore, label, exportCommand, verify, glossary];

export function usage(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length)) + 2;
  const lines = ['usage: sessionizer COMMAND [OPTIONS]', '       sessionizer COMMAND --help   the options of one command, each with a line, and an example', '', 'commands:'];
  for (const command of COMMANDS) lines.push(`  ${command.name.padEnd(width)}${command.summary}`);
  lines.push(
    '',
    'Source: --source, else $CLAUDE_CONFIG_DIR/projects, else $XDG_CONFIG_HOME/claude/projects,',
    'else ~/.claude/projects, else the sample corpus in fixtures/. Data: ./data unless --data.',
    'Exit codes: 0 success, 1 input rejected or verification failed, 2 usage error.',
    'Every command and its --json output: docs/commands.md.',
  );
  return `${lines.join('\n')}\n`;
}

const defaultIo: Io = {
  out: (text) => process.stdout.write(text),
  error: (text) => process.stderr.write(text),
  interactive: process.stderr.isTTY === true,
};

export async function main(argv: string[], given: Io = defaultIo): Promise<number> {
  optimiseLate();
  // Everything a command prints reaches the terminal with every character it
  // would act on escaped, newlines kept (files/printable.ts): a name from
  // outside that a message carries cannot change the terminal, and JSON,
  // escaped so, is the same JSON.
  const io: Io = { ...given, out: (text) => given.out(printableLines(text)), error: (text) => given.error(printableLines(text)) };
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.error : io.out)(usage());
    return name === undefined ? EXIT_USAGE : EXIT_OK;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) {
    io.error(`sessionizer: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return EXIT_USAGE;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.error(`${line(`sessionizer ${error.message}`)}usage: sessionizer ${command.synopsis}\nsessionizer ${command.name} --help says what each option does\n`);
      return EXIT_USAGE;
    }
    if (error instanceof PlaceRefused) {
      io.error(line(`sessionizer ${name}: ${error.message}`));
      return EXIT_USAGE;
    }
    if (error instanceof SourceRootError) {
      io.error(line(`sessionizer ${name}: ${error.message}`));
      return EXIT_REJECTED;
    }
    // A write the file system refused (a full disk, a read-only folder) that
    // no command said more of: its file (files/write-failure.ts) and what to do.
    const refused = refusedWriteCode(error);
    if (refused !== undefined) {
      io.error(line(`error: ${(error as Error).message.split('\n')[0]}; ${isOutOfRoom(refused) ? 'free space on its file system' : 'make it writable'}, and run the command again: what it wrote before stays`));
      return EXIT_REJECTED;
    }
    throw error;
  }
}
