// A language's highlighting and a block's highlighted HTML from its paired
// tokens (paired-tokens.ts): a token's colour in the light theme is the class `h-<rgb>`, in the dark one
// `d-<rgb>` (the style sheet of highlight-style.ts), for the browser's
// highlighter (browser-highlight.ts), which is bundled from it: no import
// of node's here.

import { Registry, Resolver } from '@shikijs/primitive';
import type { Grammar, LanguageRegistration, RegexEngine, ThemeRegistrationResolved } from 'shiki/core';
import { colourClass } from './colour-class.ts';
import { pairedTokenizer, type PairedToken, type PairedTokenizer } from './paired-tokens.ts';

/** A language as its registry highlights it. */
export interface LanguageHighlighting {
  readonly grammar: Grammar;
  readonly tokenizer: PairedTokenizer;
  readonly registry: Registry;
}

/**
 * The language `id` highlighted with `grammars` (grammars.ts, grammarsOf)
 * and the pair of themes, light then dark, in a registry of its own:
 * undefined when its grammar cannot be made. A block is then a function of
 * its language and text alone, whatever else was highlighted before.
 */
export function languageHighlighting(engine: RegexEngine, themes: readonly [ThemeRegistrationResolved, ThemeRegistrationResolved], grammars: LanguageRegistration[], id: string): LanguageHighlighting | undefined {
  const registry = new Registry(new Resolver(engine, grammars), [...themes], grammars);
  const grammar = registry.getGrammar(id);
  if (grammar === undefined) {
    registry.dispose();
    return undefined;
  }
  return { grammar, registry, tokenizer: pairedTokenizer(registry.getTheme(themes[0].name!)!, registry.getTheme(themes[1].name!)!) };
}

export function highlightedHtml(lines: readonly (readonly PairedToken[])[]): string {
  return lines.map((line) => line.map(({ content, light, dark }) => `<span class="h-${colourClass(light.color)} d-${colourClass(dark.color)}${fontClasses(light.fontStyle)}">${escapeHtml(content)}</span>`).join('')).join('\n');
}

/** The classes of a token's font style: the paired themes style a token alike, so the light one's is taken. */
function fontClasses(fontStyle: number | undefined): string {
  return `${fontStyle && fontStyle & 1 ? ' hi' : ''}${fontStyle && fontStyle & 2 ? ' hb' : ''}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
