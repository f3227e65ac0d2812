// What every command shares: how it declares its arguments, how they are
// parsed and shown in its help, its exit codes and its errors.
//
// A command declares each option once (name, type, default, one line of
// description); node:util's parseArgs, the command's --help and the check of
// docs/commands.md are all made from that declaration.
//
// Exit codes (docs/commands.md): 0 success, 1 when verification fails or
// input is rejected, 2 on a usage error. Every error names the file, line,
// id or option.

import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { claimDataFolder, type DataFolderUse } from '../export/data-folder.ts';
import { BRANCH_NAME_RULE, isBranchName, isNewBranchName } from '../branches/explicit.ts';
import { printable } from '../files/printable.ts';
import { isStoredId, STORED_ID_RULE } from '../landing/layout.ts';

export const EXIT_OK = 0;
export const EXIT_REJECTED = 1;
export const EXIT_USAGE = 2;

export class UsageError extends Error {}

/** A place given to a command that it may not use (a refused --data, say): one line, exit 2, with no synopsis, since the options were well formed. */
export class PlaceRefused extends Error {}
/**
 * One line of a command's output for a person: `text` with every character
 * a terminal would act on shown escaped (files/printable.ts), a newline in a
 * name among them, then the newline that ends the line.
 */
export function line(text: string): string {
  return `${printable(text)}\n`;
}

/**
 * What a value must look like when it becomes part of a path: an id or a
 * name. The parser refuses any other value as a usage error, before the
 * command runs, so no path is ever built from it.
 */
export interface ValueShape {
  /** What the value is, after "is not": `a conversation id`. */
  readonly what: string;
  readonly accepts: (value: string) => boolean;
  /** What it may be, in words. */
  readonly rule: string;
}

export const CONVERSATION_ID: ValueShape = { what: 'a conversation id', accepts: isStoredId, rule: STORED_ID_RULE };
export const SESSION_ID: ValueShape = { what: 'a session id', accepts: isStoredId, rule: STORED_ID_RULE };
export const BRANCH_NAME: ValueShape = { what: 'a branch name', accepts: isBranchName, rule: BRANCH_NAME_RULE };
export const NEW_BRANCH_NAME: ValueShape = { what: 'a name fork may give', accepts: isNewBranchName, rule: `${BRANCH_NAME_RULE}, and not 'active' or 'from-…', which natural branches use` };

export interface Io {
  readonly out: (text: string) => void;
  readonly error: (text: string) => void;
  /** True when standard error is a terminal, so progress may be drawn on it. */
  readonly interactive: boolean;
}

/** One option of a command. */
export interface OptionDeclaration {
  readonly type: 'string' | 'boolean';
  /** What the value stands for, as the help shows it after the option: DIR, FILE, ID. */
  readonly value?: string;
  /** Whether the option may be given more than once, each value kept in order. */
  readonly multiple?: boolean;
  /** The value when the option is not given. */
  readonly default?: string;
  /** The only values the option takes, when it takes only some. */
  readonly choices?: readonly string[];
  /** Whether the command cannot run without it. */
  readonly required?: boolean;
  /** One line for --help and docs/commands.md. */
  readonly description: string;
  /** What every value given must look like, when it names a folder or file. */
  readonly shape?: ValueShape;
}

/** One operand of a command: an argument that is not an option, such as the ID of `conversation ID`. */
export interface OperandDeclaration {
  readonly name: string;
  readonly required: boolean;
  readonly description: string;
  /** What the value must look like, when it names a folder or file. */
  readonly shape?: ValueShape;
}

export type OptionDeclarations = Readonly<Record<string, OptionDeclaration>>;

type ValueOf<Declared extends OptionDeclaration> = Declared['type'] extends 'boolean'
  ? boolean
  : Declared['multiple'] extends true
    ? string[]
    : Declared extends { readonly choices: readonly (infer Choice)[] }
      ? Choice
      : string;

/** The parsed value of every declared option: always there when it has a default or is required. */
export type OptionValues<Declared extends OptionDeclarations> = {
  readonly [Name in keyof Declared]: Declared[Name] extends { readonly default: string } | { readonly required: true } ? ValueOf<Declared[Name]> : ValueOf<Declared[Name]> | undefined;
};

export interface Given<Declared extends OptionDeclarations> {
  readonly values: OptionValues<Declared>;
  /** The operands in the order given: as many as the command declares at most; every required one is there. */
  readonly operands: readonly string[];
}

export interface CommandDeclaration<Declared extends OptionDeclarations> {
  readonly name: string;
  /** One line: what the command does. */
  readonly summary: string;
  readonly operands?: readonly OperandDeclaration[];
  readonly options: Declared;
  /** Whole command lines, each run as it stands. */
  readonly examples: readonly string[];
  /** Paragraphs the help prints after the options: rules between options, say. */
  readonly notes?: readonly string[];
  readonly run: (given: Given<Declared>, io: Io) => Promise<number> | number;
}

export interface Command {
  readonly name: string;
  readonly summary: string;
  /** The command and its arguments on one line, made from the declaration. */
  readonly synopsis: string;
  readonly operands: readonly OperandDeclaration[];
  readonly options: OptionDeclarations;
  readonly examples: readonly string[];
  readonly notes: readonly string[];
  /** The command's help, made from the declaration. */
  readonly help: () => string;
  /** Parses `argv` by the declaration and runs the command; a mistake in `argv` is a UsageError that names it. */
  readonly run: (argv: string[], io: Io) => Promise<number> | number;
}

/** The option every command takes: not declared by each, as it is no part of what the command does. */
const HELP_OPTION: OptionDeclaration = { type: 'boolean', description: 'print this help and exit' };

/** A command made from its declaration: the parser and the help both come from `declaration.options`. */
export function command<const Declared extends OptionDeclarations>(declaration: CommandDeclaration<Declared>): Command {
  const operands = declaration.operands ?? [];
  const made: Command = {
    name: declaration.name,
    summary: declaration.summary,
    synopsis: synopsisOf(declaration.name, operands, declaration.options),
    operands,
    options: declaration.options,
    examples: declaration.examples,
    notes: declaration.notes ?? [],
    help: () => helpOf(made),
    run(argv, io) {
      const given = parseArguments(declaration.name, argv, operands, declaration.options);
      if (given === 'help') {
        io.out(helpOf(made));
        return EXIT_OK;
      }
      return declaration.run(given as Given<Declared>, io);
    },
  };
  return made;
}

/** The arguments by the declaration, 'help' when --help or -h is among them, or a UsageError naming what is wrong. */
function parseArguments(name: string, argv: string[], operands: readonly OperandDeclaration[], declared: OptionDeclarations): Given<OptionDeclarations> | 'help' {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean', short: 'h' } };
  for (const [option, declaration] of Object.entries(declared)) {
    options[option] = { type: declaration.type, ...(declaration.multiple ? { multiple: true } : {}), ...(declaration.default !== undefined ? { default: declaration.default } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    if (argv.includes('--help') || argv.includes('-h')) return 'help';
    throw new UsageError(`${name}: ${(error as Error).message}`);
  }
  const { help, ...values } = parsed.values;
  if (help) return 'help';
  if (parsed.positionals.length > operands.length) throw new UsageError(`${name}: unexpected argument ${JSON.stringify(parsed.positionals[operands.length])}`);
  const missingOperand = operands.find((operand, index) => operand.required && parsed.positionals[index] === undefined);
  if (missingOperand) throw new UsageError(`${name}: ${missingOperand.name} is missing`);
  operands.forEach((operand, index) => {
    const value = parsed.positionals[index];
    if (operand.shape && value !== undefined) checkShape(name, operand.name, value, operand.shape);
  });
  for (const [option, declaration] of Object.entries(declared)) {
    const value = values[option];
    if (declaration.required && value === undefined) throw new UsageError(`${name}: --${option} ${declaration.value ?? ''} is missing`.trimEnd());
    if (declaration.choices && typeof value === 'string' && !declaration.choices.includes(value)) {
      throw new UsageError(`${name}: --${option} is ${listed(declaration.choices, 'or')}, not ${JSON.stringify(value)}`);
    }
    if (declaration.shape) for (const each of [value].flat()) if (typeof each === 'string') checkShape(name, `--${option}`, each, declaration.shape);
  }
  return { values: values as OptionValues<OptionDeclarations>, operands: parsed.positionals };
}

/** A UsageError naming `given` (an operand or option) and its value, unless the value has the shape. */
function checkShape(name: string, given: string, value: string, shape: ValueShape): void {
  if (!shape.accepts(value)) throw new UsageError(`${name}: ${given} ${JSON.stringify(value)} is not ${shape.what}: ${shape.rule}`);
}

/** `a, b or c`. */
function listed(words: readonly string[], last: string): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)}`;
}

/** The option as the synopsis and the help show it: `--data DIR`. */
function optionForm(name: string, declaration: OptionDeclaration): string {
  return `--${name}${declaration.type === 'string' ? ` ${declaration.choices?.join('|') ?? declaration.value ?? 'VALUE'}` : ''}`;
}

function synopsisOf(name: string, operands: readonly OperandDeclaration[], options: OptionDeclarations): string {
  const words = [name];
  for (const operand of operands) words.push(operand.required ? operand.name : `[${operand.name}]`);
  for (const [option, declaration] of Object.entries(options)) {
    const form = optionForm(option, declaration);
    words.push(`${declaration.required ? form : `[${form}]`}${declaration.multiple ? '...' : ''}`);
  }
  return words.join(' ');
}

/** The command's whole help: the synopsis, the summary, every operand and option on a line of its own, the notes and the examples. */
function helpOf(made: Command): string {
  const rows: [string, string][] = [];
  for (const operand of made.operands) rows.push([operand.name, `${operand.description}${operand.required ? '' : ' (optional)'}`]);
  const optionRows: [string, string][] = Object.entries(made.options).map(([option, declaration]) => {
    const marks = [...(declaration.required ? ['required'] : []), ...(declaration.multiple ? ['may be given more than once'] : []), ...(declaration.default !== undefined ? [`default: ${declaration.default}`] : [])];
    return [optionForm(option, declaration), `${declaration.description}${marks.length > 0 ? ` (${marks.join('; ')})` : ''}`];
  });
  optionRows.push(['-h, --help', HELP_OPTION.description]);
  const width = Math.max(...[...rows, ...optionRows].map(([left]) => left.length)) + 2;
  const table = (entries: [string, string][]) => entries.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
  const lines = [`usage: sessionizer ${made.synopsis}`, '', made.summary];
  if (rows.length > 0) lines.push('', 'arguments:', ...table(rows));
  lines.push('', 'options:', ...table(optionRows));
  for (const note of made.notes) lines.push('', note);
  lines.push('', made.examples.length === 1 ? 'example:' : 'examples:', ...made.examples.map((example) => `  ${example}`));
  return `${lines.join('\n')}\n`;
}

// Options several commands share, declared once.

export const DATA_OPTION = { type: 'string', value: 'DIR', default: 'data', description: 'the data folder: the storage zone of landed files, .sd files and rounds' } as const;

/**
 * The data folder given to `--data`, made absolute, once it may be used as
 * `use` says (export/data-folder.ts), marked as a data folder when the
 * command writes into it; else PlaceRefused, naming it and why.
 */
export function dataFolderOf(given: string, use: DataFolderUse): string {
  const data = path.resolve(given);
  const refusal = claimDataFolder(data, use);
  if (refusal !== undefined) throw new PlaceRefused(`--data ${data}: ${refusal}`);
  return data;
}

export const SOURCE_OPTIONS = {
  source: { type: 'string', value: 'DIR', description: 'the Claude Code projects folder to read (see "Source" in sessionizer --help)' },
  include: { type: 'string', value: 'PATTERN', multiple: true, description: 'only sessions whose id or project folder matches this glob' },
  exclude: { type: 'string', value: 'PATTERN', multiple: true, description: 'leave out sessions whose id or project folder matches this glob' },
} as const;

