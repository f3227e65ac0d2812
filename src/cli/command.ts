// What every command shares: its options, its exit codes and its errors.
//
// Exit codes (DESIGN.md): 0 success, 1 when verification fails or input is
// rejected, 2 on a usage error. Every error names the file, line or id.

import { parseArgs, type ParseArgsConfig } from 'node:util';

export const EXIT_OK = 0;
export const EXIT_REJECTED = 1;
export const EXIT_USAGE = 2;

export class UsageError extends Error {}

export interface Command {
  readonly name: string;
  readonly synopsis: string;
  readonly summary: string;
  readonly run: (argv: string[], io: Io) => Promise<number> | number;
}

export interface Io {
  readonly out: (text: string) => void;
  readonly error: (text: string) => void;
  /** True when standard error is a terminal, so progress may be drawn on it. */
  readonly interactive: boolean;
}

export type Options = NonNullable<ParseArgsConfig['options']>;

/** Parses a command's arguments, turning every mistake into a UsageError that says what was wrong. */
export function parseCommandArguments<T extends Options>(command: string, argv: string[], options: T, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: positionals > 0, strict: true });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message}`);
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`${command}: unexpected argument ${JSON.stringify(parsed.positionals[positionals])}`);
  }
  return parsed;
}

export const SOURCE_OPTIONS = {
  source: { type: 'string' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  json: { type: 'boolean' },
} as const;
