// The rule set that finds secrets in text: secretlint's recommended preset
// (a maintained set of rules for cloud keys, tokens, private keys, basic
// auth and database connection strings), then Sessionizer's own patterns
// (builtin.rules: .env assignments, passwords on command lines and in URLs,
// Authorization headers, Azure's keys, JWTs), then a user's own, in the same
// format; then private keys however a tool shows them (private-keys.ts) and
// the values of secret-named fields written as text (fields.ts). Each run of
// token characters is tried for the tokens providers mark with a prefix
// (tokens.rules) and, when it is base64 whose bytes are text, opened and its
// text found in by the same rules.
//
// A rules file holds one rule a line: `name /source/flags`. See
// builtin.rules for the format; a malformed line is rejected with its file
// and line number.

import { isUtf8 } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SecretLintCoreConfig } from '@secretlint/types';
import { secretFieldSpans } from './fields.ts';
import { privateKeySpans } from './private-keys.ts';
import { RULE_NAME } from '../session-data/placeholder.ts';

export const BUILTIN_RULES = fileURLToPath(new URL('./builtin.rules', import.meta.url));
export const TOKEN_RULES = fileURLToPath(new URL('./tokens.rules', import.meta.url));

export interface PatternRule {
  readonly name: string;
  /** Global, so every match is found. */
  readonly pattern: RegExp;
  /** Where the rule was written: file and line. */
  readonly origin: string;
}

/** The rules of tokens.rules joined into one expression: the rule of a match is the one whose group took part. */
export interface TokenRules {
  /** Sticky: it is tried at one position at a time. */
  readonly source: string;
  /** The name of each rule, in the order of their groups. */
  readonly names: readonly string[];
}

export interface RuleSet {
  readonly patterns: PatternRule[];
  readonly tokens: TokenRules;
  /** What the set is made of, for the report. */
  readonly sources: string[];
  /** secretlint with its configuration, loaded when the set is first used. */
  readonly secretlint: Secretlint;
}

/** A piece of a text that a rule says is secret: [start, end) in the text's UTF-16 units. */
export interface Span {
  readonly start: number;
  readonly end: number;
  readonly rule: string;
  /** The size its placeholder states, when it is not the size of the text cut: a medium's bytes, not its base64 (scan.ts). */
  readonly bytes?: number;
}

export class RulesFileError extends Error {}

const RULE_LINE = /^([^\s]+)\s+\/(.*)\/([a-z]*)$/;

/** Reads a rules file; throws RulesFileError naming the file and line of the first malformed rule. */
export function readRulesFile(file: string): PatternRule[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new RulesFileError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const rules: PatternRule[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${file}: line ${index + 1}`;
    const parts = RULE_LINE.exec(line);
    if (!parts) throw new RulesFileError(`${where}: expected "name /regular expression/flags", found ${JSON.stringify(line)}`);
    const [, name, source, flags] = parts as unknown as [string, string, string, string];
    if (!RULE_NAME.test(name)) throw new RulesFileError(`${where}: the rule name ${JSON.stringify(name)} must be lower-case letters, digits and dashes`);
    if (!/^[imsu]*$/.test(flags)) throw new RulesFileError(`${where}: flags may only be i, m, s and u, found ${JSON.stringify(flags)}`);
    let pattern: RegExp;
    try {
      pattern = new RegExp(source, `${flags}g`);
    } catch (error) {
      throw new RulesFileError(`${where}: not a valid regular expression (${(error as Error).message})`);
    }
    // A rule that matches nothing at all would remove text at every position.
    if (new RegExp(source, flags).test('')) throw new RulesFileError(`${where}: the expression matches empty text`);
    rules.push({ name, pattern, origin: where });
  });
  return rules;
}

export function ruleSet(userRules?: string): RuleSet {
  const patterns = readRulesFile(BUILTIN_RULES);
  const sources = [`${RECOMMENDED} (secretlint)`, 'sessionizer builtin.rules', 'sessionizer tokens.rules', 'sessionizer private keys'];
  if (userRules !== undefined) {
    patterns.push(...readRulesFile(userRules));
    // Only the file's name: its folder may be under a home folder the export masks.
    sources.push(`user rules ${path.basename(userRules)}`);
  }
  return { patterns, tokens: readTokenRules(TOKEN_RULES), sources, secretlint: new Secretlint() };
}

// What may stand before and after a token (tokens.rules).
const TOKEN_BEFORE = '(?<![A-Za-z0-9_+-])';
const TOKEN_AFTER = '(?![A-Za-z0-9_-])';

/** Reads a file of token rules and joins them; throws RulesFileError for a rule with flags or a group of its own. */
export function readTokenRules(file: string): TokenRules {
  const rules = readRulesFile(file);
  for (const rule of rules) {
    if (rule.pattern.flags !== 'g') throw new RulesFileError(`${rule.origin}: a token rule takes no flags`);
    // An alternative that matches the empty text shows how many groups the expression has.
    if (new RegExp(`${rule.pattern.source}|`).exec('')!.length > 1) throw new RulesFileError(`${rule.origin}: a token rule has no capturing group; write (?:…)`);
  }
  return { source: `${TOKEN_BEFORE}(?:${rules.map((rule) => `(${rule.pattern.source})`).join('|')})${TOKEN_AFTER}`, names: rules.map((rule) => rule.name) };
}

const RECOMMENDED = '@secretlint/secretlint-rule-preset-recommend';

/**
 * secretlint's recommended preset, configured, loaded on first use: loading
 * it takes long enough that every other command would notice paying for it.
 */
export class Secretlint {
  private loading:
    | Promise<{ lintSource: typeof import('@secretlint/core').lintSource; profiler: typeof import('@secretlint/profiler').secretLintProfiler; config: SecretLintCoreConfig; withoutAccountIds: SecretLintCoreConfig }>
    | undefined;

  load() {
    this.loading ??= Promise.all([import('@secretlint/core'), import('@secretlint/secretlint-rule-preset-recommend'), import('@secretlint/profiler')]).then(([core, preset, profiler]) => {
      // The recommended preset minus its comment filter: a `secretlint-disable`
      // comment inside a transcript is text someone pasted, not an instruction
      // to us. Access key ids and account ids are scanned too, which the
      // preset leaves off by default.
      const configured = (ids: boolean): SecretLintCoreConfig => ({
        rules: [
          {
            id: preset.creator.meta.id,
            rule: preset.creator,
            rules: [
              { id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: ids } },
              { id: '@secretlint/secretlint-rule-filter-comments', disabled: true },
            ],
          },
        ],
      });
      return { lintSource: core.lintSource, profiler: profiler.secretLintProfiler, config: configured(true), withoutAccountIds: configured(false) };
    });
    return this.loading;
  }
}

// The AWS rule's scan for account ids (`aws_account_id = 1234-5678-9012`)
// costs more than any other rule of the preset, as its expression may start
// anywhere: all it holds before the word `account` is optional. A text
// without that word can hold no account id, and is scanned without that
// option; the other scan the option brings, for access key ids, is
// builtin.rules' aws rule, the same expression, which runs on every text.
const ACCOUNT_WORD = /account/i;

const SECRETLINT_PREFIX = '@secretlint/secretlint-rule-';

/**
 * Every span of the text that a rule of the set finds, in no particular
 * order; spans may overlap. The rules see the text as it is, then its
 * private keys (private-keys.ts), the values of secret-named fields written
 * as text (fields.ts), the tokens in its runs of token characters and the
 * text inside each base64 blob it holds.
 */
export async function findSecrets(text: string, rules: RuleSet): Promise<Span[]> {
  return findSecretsWithin(text, rules, BASE64_DEPTH);
}

async function findSecretsWithin(text: string, rules: RuleSet, depth: number): Promise<Span[]> {
  const spans: Span[] = [];
  const { lintSource, profiler, config, withoutAccountIds } = await rules.secretlint.load();
  const result = await lintSource({ source: { content: text, filePath: 'transcript', ext: '', contentType: 'text' }, options: { config: ACCOUNT_WORD.test(text) ? config : withoutAccountIds, noPhysicFilePath: true } });
  await forgetProfile(profiler);
  for (const message of result.messages) {
    const rule = message.ruleId.startsWith(SECRETLINT_PREFIX) ? message.ruleId.slice(SECRETLINT_PREFIX.length) : 'secretlint';
    spans.push(...secretOf(text, message.range, message.data, RULE_NAME.test(rule) ? rule : 'secretlint'));
  }
  for (const rule of rules.patterns) {
    for (const match of text.matchAll(rule.pattern)) {
      const secret = match.groups?.secret;
      if (secret === undefined) {
        if (match[0].length > 0) spans.push({ start: match.index, end: match.index + match[0].length, rule: rule.name });
        continue;
      }
      const start = match.index + match[0].lastIndexOf(secret);
      if (secret.length > 0) spans.push({ start, end: start + secret.length, rule: rule.name });
    }
  }
  spans.push(...privateKeySpans(text));
  spans.push(...secretFieldSpans(text));
  spans.push(...(await runSpans(text, rules, depth)));
  return spans;
}

/**
 * Empties what secretlint's profiler keeps. In secretlint 12 the profiler is
 * always on: it keeps a record of the start and the end of every rule of
 * every call for the life of the process, and looks each end up among all the
 * records before it, so a scan of many texts costs the square of its calls
 * (a tenth of the scan of the 200 MB corpus). Nothing reads the profile;
 * secretlint 13 can turn it off, but needs Node 22. The arrays its getters
 * give are the ones it keeps. It hears of a call's records a turn of the
 * event loop after they are made, so that turn is waited for first.
 */
async function forgetProfile(profiler: typeof import('@secretlint/profiler').secretLintProfiler): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  (await profiler.getEntries()).length = 0;
  (await profiler.getMeasures()).length = 0;
}

// How many base64 layers are opened: a secret encoded, and that text encoded again.
const BASE64_DEPTH = 2;

// A run of base64 or base64url long enough to hold a secret a rule finds
// (16 bytes), standing alone; it may follow `=`, as the value of `NAME=`.
// The character before it is matched rather than looked behind at: the
// engine would try a look-behind at every position of the text. Most tokens
// are such runs too.
const BASE64_RUN = /(?:^|[^A-Za-z0-9+/_-])([A-Za-z0-9+/_-]{24,}={0,2})(?![A-Za-z0-9+/_=-])/dg;

// The longest run tried for a token: longer runs are images and archives.
const LONGEST_TOKEN_RUN = 1024;
// How far before a run a token may start: a prefix joined by dots or tildes
// (`dp.pt.`, `dt0c01.<24 characters>.`) is not part of the run.
const TOKEN_LEAD = 48;
// The characters of a word that holds a token, dots and tildes included.
const WORD_CHARACTER = /[A-Za-z0-9_.~-]/;

/**
 * Each run of token characters of the text: the provider tokens in it
 * (tokens.rules), and, when it is a base64 blob whose bytes are text holding
 * a secret, the blob, as one span named for the rule that found the secret
 * inside: the blob is the secret's spelling, so the whole of it goes. The
 * rules are tried on the runs alone, so the text is read once for all of
 * them; the decoded texts are scanned together, in one call, as a file's
 * strings are. Blobs are opened `depth` layers deep.
 */
async function runSpans(text: string, rules: RuleSet, depth: number): Promise<Span[]> {
  const spans: Span[] = [];
  const blobs: { start: number; end: number; at: number; length: number }[] = [];
  const decoded: string[] = [];
  const tokens = new RegExp(rules.tokens.source, 'y');
  let at = 0;
  for (const match of text.matchAll(BASE64_RUN)) {
    const [start, end] = match.indices![1]!;
    if (end - start <= LONGEST_TOKEN_RUN) tokenSpans(text, start, end, tokens, rules.tokens.names, spans);
    if (depth === 0) continue;
    const inner = textOf(match[1]!);
    if (inner === undefined) continue;
    blobs.push({ start, end, at, length: inner.length });
    decoded.push(inner);
    at += inner.length + 2;
  }
  if (blobs.length === 0) return spans;
  const found = await findSecretsWithin(decoded.join('\n\n'), rules, depth - 1);
  for (const blob of blobs) {
    const inside = found.find((span) => span.start < blob.at + blob.length && span.end > blob.at);
    if (inside) spans.push({ start: blob.start, end: blob.end, rule: `${inside.rule.slice(0, 57)}-base64` });
  }
  return spans;
}

/** The tokens that start where one can in the run of the text from `start` to `end`, each named by its rule. */
function tokenSpans(text: string, start: number, end: number, tokens: RegExp, names: readonly string[], spans: Span[]): void {
  let word = start;
  while (word > 0 && start - word < TOKEN_LEAD && WORD_CHARACTER.test(text[word - 1]!)) word--;
  if (word < start) tokenAt(text, word, tokens, names, spans);
  tokenAt(text, start, tokens, names, spans);
  for (let slash = text.indexOf('/', start); slash >= 0 && slash < end; slash = text.indexOf('/', slash + 1)) tokenAt(text, slash + 1, tokens, names, spans);
}

/** The token that starts at `position` of the text, if any, named by its rule. */
function tokenAt(text: string, position: number, tokens: RegExp, names: readonly string[], spans: Span[]): void {
  tokens.lastIndex = position;
  const match = tokens.exec(text);
  if (!match) return;
  let group = 1;
  while (match[group] === undefined) group++;
  spans.push({ start: position, end: position + match[0].length, rule: names[group - 1]! });
}

/** The text a base64 blob encodes, when its bytes are UTF-8 text without control characters; else undefined. */
function textOf(blob: string): string | undefined {
  // Most blobs are images, archives or no base64 at all (a path, an
  // identifier): their first bytes tell, without decoding the rest.
  if (hasControl(Buffer.from(blob.slice(0, 64), 'base64'))) return undefined;
  const bytes = Buffer.from(blob, 'base64');
  return !hasControl(bytes) && isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}

function hasControl(bytes: Buffer): boolean {
  for (const byte of bytes) if ((byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) || byte === 0x7f) return true;
  return false;
}

// Secretlint's ranges are not always the secret: the AWS secret key rule
// reports the start of its whole match with the length of the key (seen in 13.0.7),
// which would leave most of the key in place. Its messages also carry the
// secret itself in `data`; where that value is found at the reported place,
// it is what is removed, else the range.
function secretOf(text: string, range: readonly [number, number], data: unknown, rule: string): Span[] {
  const values = data && typeof data === 'object' ? Object.values(data).filter((value): value is string => typeof value === 'string' && value.length >= 4) : [];
  const spans: Span[] = [];
  for (const value of values) {
    const at = text.indexOf(value, range[0]);
    if (at >= 0 && at < range[1] + value.length) spans.push({ start: at, end: at + value.length, rule });
  }
  return spans.length > 0 ? spans : [{ start: range[0], end: range[1], rule }];
}
