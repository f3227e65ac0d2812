// The languages shiki knows and the grammars each is highlighted with: what
// the browser's highlighter is bundled with (browser-code.ts).

import type { LanguageRegistration } from 'shiki/core';
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
 * them cost far more processor time and memory than the Markdown itself
 * (bench/results/measurements-behind-choices.md). A fence in a
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
