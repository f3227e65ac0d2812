// The command table. Every command of DESIGN.md is listed, so --help shows
// the whole contract; what a command does not do yet, its summary says.

import { SourceRootError } from '../adapters/adapter.ts';
import { collect } from './commands/collect.ts';
import { sources } from './commands/sources.ts';
import { verify } from './commands/verify.ts';
import { parse } from './commands/parse.ts';
import { conversation } from './commands/conversation.ts';
import { glossary } from './commands/glossary.ts';
import { branches } from './commands/branches.ts';
import { fork, label, restore } from './commands/fork.ts';
import { exportCommand } from './commands/export.ts';
import { EXIT_OK, EXIT_REJECTED, EXIT_USAGE, UsageError, type Command, type Io } from './command.ts';

export const COMMANDS: readonly Command[] = [
  { name: 'sources', synopsis: 'sources  [--source DIR] [--include PATTERN]... [--exclude PATTERN]... [--json]', summary: 'discovered sessions and their files', run: sources },
  { name: 'collect', synopsis: 'collect  [--source DIR] [--data DIR] [--once] [--interval SECONDS] [--include PATTERN]... [--exclude PATTERN]... [--json]', summary: 'land new source data', run: collect },
  { name: 'parse', synopsis: 'parse    [--data DIR] [SESSION] [--json]', summary: 'append a round to each changed chain', run: parse },
  { name: 'conversation', synopsis: 'conversation ID [--data DIR] [--json] [--terms unified|native|both]', summary: 'the folded conversation', run: conversation },
  { name: 'branches', synopsis: 'branches ID [--data DIR] [--json]', summary: 'natural and explicit branches', run: branches },
  { name: 'fork', synopsis: 'fork ID --at EVENT [--name NAME] [--data DIR] [--by ACTOR] [--reason TEXT] [--allow-tool-closed] [--json]', summary: 'explicit branch at a stable boundary', run: fork },
  { name: 'restore', synopsis: 'restore ID --branch NAME --out DIR [--data DIR]', summary: 'the branch as a resumable transcript', run: restore },
  { name: 'label', synopsis: 'label ID --branch NAME [--label LABEL]... [--summary TEXT] [--data DIR]', summary: 'labels and a summary for a branch, as a new record', run: label },
  { name: 'export', synopsis: 'export   [--source DIR] [--data DIR] [--out DIR] [--archive FILE] [--conversation ID]... [--redact [--redact-rules FILE] [--redact-paths] [--dry-run]] [--merge EXPORT]... [--json]', summary: 'the bundle, the static site, the manifest and root digest, a .tar.zst with --archive; --redact takes secrets out of the copy; --merge puts exports made apart together', run: exportCommand },
  { name: 'verify', synopsis: 'verify PATH [--deep] [--json]', summary: 'check a storage root, an export folder or a .tar.zst (read as a stream, never extracted) from its files alone; --deep also derives every .sd again and assembles every conversation again to compare with its rounds', run: verify },
  { name: 'glossary', synopsis: 'glossary [--json]', summary: "the model's words and Claude Code's", run: glossary },
];

export function usage(): string {
  const lines = ['usage: sessionizer COMMAND [OPTIONS]', '', 'commands:'];
  for (const command of COMMANDS) {
    lines.push(`  ${command.synopsis}`);
    lines.push(`      ${command.summary}`);
  }
  lines.push(
    '',
    'Source: --source, else $CLAUDE_CONFIG_DIR/projects, else $XDG_CONFIG_HOME/claude/projects,',
    'else ~/.claude/projects, else the sample corpus in fixtures/. Data: ./data unless --data.',
    'Exit codes: 0 success, 1 input rejected or verification failed, 2 usage error.',
  );
  return `${lines.join('\n')}\n`;
}

const defaultIo: Io = {
  out: (text) => process.stdout.write(text),
  error: (text) => process.stderr.write(text),
  interactive: process.stderr.isTTY === true,
};

export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
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
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(`usage: sessionizer ${command.synopsis}\n  ${command.summary}\n`);
    return EXIT_OK;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.error(`sessionizer ${error.message}\nusage: sessionizer ${command.synopsis}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof SourceRootError) {
      io.error(`sessionizer ${name}: ${error.message}\n`);
      return EXIT_REJECTED;
    }
    throw error;
  }
}
