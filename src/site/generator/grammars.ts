// The languages shiki knows, the grammars each is highlighted with, and
// their regular expressions translated once, when the renderer is made.
//
// Shiki's JavaScript engine translates each Oniguruma expression of a
// grammar into a JavaScript one (oniguruma-to-es) the first time a rule
// needs it, in every process that highlights: about half the cost of a
// language's first block, and on the real corpus over a second of each
// renderer child's processor time, spent again by every child of every
// export (bench/results/measurements-behind-choices.md). Every bundled
// language's expressions are translated once, by the same function the
// engine uses, when the renderer is made (kept-renderer.ts), and kept
// beside it, a file per language; a renderer child builds each expression
// from its translation. An expression missing from the table (one whose
// back-references a match fills in) is translated as the engine would.

import fs from 'node:fs';
import path from 'node:path';
import { EmulatedRegExp } from 'oniguruma-to-es';
import type { LanguageRegistration } from 'shiki/core';
import { defaultJavaScriptRegexConstructor } from 'shiki/engine/javascript';
import { bundledLanguages, bundledLanguagesInfo } from 'shiki/langs';

type LanguageLoader = () => Promise<{ default: LanguageRegistration[] }>;

/**
 * Every name a language is known by (its id and aliases), to its id. A
 * language name comes from the transcript (a fence's info string, a file's
 * extension), so it is looked up among shiki's own entries only, never
 * through an object's prototype: `constructor` is no language.
 */
export function languageNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const { id, aliases } of bundledLanguagesInfo) for (const name of [id, ...(aliases ?? [])]) if (!names.has(name)) names.set(name, id);
  return names;
}

/**
 * The grammars `id` is highlighted with, in a fixed order: its own and
 * those it always embeds (shiki's `embeddedLangs`). Those it embeds only
 * once they are loaded (`embeddedLangsLazy`: Markdown's fences in forty
 * languages, sixty-nine grammars in all) are left out, so a fence inside a
 * Markdown file a tool shows stays plain, its Markdown highlighted: reaching
 * them cost seconds of processor time in every renderer child, most of the
 * highlighting of a real site, and tens of megabytes of compiled
 * expressions (bench/results/measurements-behind-choices.md). A fence in a
 * prompt or a reply is rendered by markdown-it and highlighted in its own
 * language (models/markdown.ts).
 */
export async function grammarsOf(id: string): Promise<LanguageRegistration[]> {
  if (!Object.hasOwn(bundledLanguages, id)) return [];
  const loader = (bundledLanguages as Record<string, LanguageLoader>)[id]!;
  const grammars = new Map<string, LanguageRegistration>();
  for (const grammar of (await loader()).default) {
    const { embeddedLangsLazy: _lazy, ...rest } = grammar;
    if (!grammars.has(grammar.name)) grammars.set(grammar.name, rest);
  }
  return [...grammars.values()];
}

/** An expression as the engine built it: its source and flags, and an emulated one's options; null when it cannot be translated. */
type Translation = readonly [source: string, flags: string, options?: object] | null;

/** The engine's translation of `pattern` (defaultJavaScriptRegexConstructor), as the table keeps it. */
function translate(pattern: string): Translation {
  let expression: RegExp;
  try {
    expression = defaultJavaScriptRegexConstructor(pattern, { target: 'auto' });
  } catch {
    return null;
  }
  // EmulatedRegExp keeps the options it was made with for this (rawOptions).
  return expression instanceof EmulatedRegExp ? [expression.source, expression.flags, expression.rawOptions] : [expression.source, expression.flags];
}

/**
 * Writes the translation of every expression of the grammars of each of
 * `languages` (grammarsOf; by default every bundled language) into
 * `folder`, as `<language id>.json`: each expression, by its Oniguruma
 * text, to its translation. Each expression is translated once, however
 * many languages embed it.
 */
export async function writeTranslatedExpressions(folder: string, languages: readonly string[] = bundledLanguagesInfo.map(({ id }) => id)): Promise<void> {
  fs.mkdirSync(folder, { recursive: true });
  const translations = new Map<string, Translation>();
  for (const id of languages) {
    const table: Record<string, Translation> = {};
    for (const pattern of expressionsOf(await grammarsOf(id))) {
      if (!translations.has(pattern)) translations.set(pattern, translate(pattern));
      table[pattern] = translations.get(pattern)!;
    }
    fs.writeFileSync(path.join(folder, `${id}.json`), JSON.stringify(table));
  }
}

/**
 * Every expression a scanner of these grammars can be given: each `match`,
 * `begin`, `end` and `while`, in the forms vscode-textmate's RegExpSource
 * gives the engine. It rewrites `\z`, and an expression with `\A` or `\G`
 * is given in four forms, each anchor kept or made to match nothing
 * (`\` then U+FFFF), by where the scan stands.
 */
export function expressionsOf(grammars: readonly object[]): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      if (typeof inner === 'string' && EXPRESSION_KEYS.has(key)) for (const form of formsOf(inner)) found.add(form);
      else visit(inner);
    }
  };
  for (const grammar of grammars) visit(grammar);
  return found;
}

const EXPRESSION_KEYS = new Set(['match', 'begin', 'end', 'while']);

function formsOf(pattern: string): string[] {
  let source = '';
  let anchored = false;
  for (let at = 0; at < pattern.length; at++) {
    const character = pattern[at]!;
    if (character === '\\' && at + 1 < pattern.length) {
      const next = pattern[at + 1]!;
      if (next === 'A' || next === 'G') anchored = true;
      source += next === 'z' ? '$(?!\\n)(?<!\\n)' : character + next;
      at++;
    } else source += character;
  }
  if (!anchored) return [source];
  const form = (keepA: boolean, keepG: boolean): string => source.replace(/\\(.)/gs, (escape, next: string) => (next === 'A' && !keepA) || (next === 'G' && !keepG) ? '\\\uFFFF' : escape);
  return [form(false, false), form(false, true), form(true, false), form(true, true)];
}

/**
 * The engine's regexConstructor for the highlighting process: an expression from
 * the translations in `folder` of the languages loaded so far (`load`
 * adds a language's), else translated now, as the engine would.
 */
export function translatedExpressions(folder: string | undefined): { load(id: string): void; construct(pattern: string): RegExp } {
  const known = new Map<string, Translation>();
  return {
    load(id) {
      if (folder === undefined) return;
      let table: Record<string, Translation>;
      try {
        table = JSON.parse(fs.readFileSync(path.join(folder, `${id}.json`), 'utf8')) as Record<string, Translation>;
      } catch {
        // A renderer made without its translations highlights all the same.
        return;
      }
      for (const [pattern, translation] of Object.entries(table)) known.set(pattern, translation);
    },
    construct(pattern) {
      const translation = known.get(pattern);
      if (translation === undefined) return defaultJavaScriptRegexConstructor(pattern, { target: 'auto' });
      if (translation === null) throw new Error(`an expression the JavaScript engine cannot translate: ${pattern}`);
      const [source, flags, options] = translation;
      return options === undefined ? new RegExp(source, flags) : new EmulatedRegExp(source, flags, options);
    },
  };
}
