// Highlighting for the pages, while Astro renders them, kept in a cache on
// disk (generator/highlighted.ts) that later builds reuse. One highlighter for
// a site step: in its highlighting process, which answers every renderer
// child (highlight-service.ts), or in its only child; a test may give a
// site reader one of its own (generator/site-reader.ts). It uses shiki's JavaScript regex engine: Oniguruma's
// gave the same HTML for a little less processor time, but its WebAssembly
// memory keeps every compiled expression and grew the renderer by about
// 220 MB on the real corpus (bench/results/highlighting-2026-12-06.md). A
// language's grammars are loaded the first time a block asks for it
// (createHighlighter). Each block is tokenized once for both themes
// (paired-tokens.ts).
//
// Output is class-based (highlight-html.ts), and the style sheet is made
// from the themes' own colours (highlight-style.ts), since inline styles
// made pages many times the size of their code (research §5).

import type { Registry } from '@shikijs/primitive';
import type { RegexEngine } from 'shiki/core';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { grammarsOf, languageNames, translatedExpressions } from './grammars.ts';
import { highlightKey, openHighlightStore } from './highlighted.ts';
import type { CodeHighlighter } from '../models/site.ts';
import { loadThemes, THEME_PAIR } from './highlight-style.ts';
import { HIGHLIGHT_LIMIT, highlightedHtml, languageHighlighting, type LanguageHighlighting } from './highlight-html.ts';

/**
 * What a block's HTML is made with, beside its themes, in the key the cache
 * keeps it by: a block highlighted another way is highlighted again.
 */
const HIGHLIGHTING = `${THEME_PAIR} each language with the languages it always embeds`;

export interface Highlighter extends CodeHighlighter {
  /** The highlighted HTML of a piece of code, from the cache or made and cached now; undefined when it stays plain. */
  ensure(language: string, code: string): Promise<string | undefined>;
  /** Does now what the first page would: reads the cache's indexes. */
  warm(): void;
  dispose(): void;
}

/**
 * A highlighter whose blocks are a function of their language and text
 * alone, whatever the process highlighted before. In one registry for every
 * language, a grammar embeds another only once that one is loaded (a SQL
 * fence in Markdown stayed plain until a SQL block came), and a grammar
 * that injects into others (vue's into Markdown, ts-tags' into TypeScript)
 * changes them once it is loaded. So each language has a registry of its
 * own that knows only its own grammars (grammarsOf).
 *
 * `expressions` is the folder of the grammars' expressions translated when
 * the renderer was made (grammars.ts); without it, each is translated as a
 * rule first needs it.
 */
export async function createHighlighter(cache: string, expressions?: string): Promise<Highlighter> {
  const store = openHighlightStore(cache);
  const themes = await loadThemes();
  const names = languageNames();
  const languages = new Map<string, Promise<LanguageHighlighting | undefined>>();
  const registries: Registry[] = [];
  const translated = translatedExpressions(expressions);
  let engine: RegexEngine | undefined;
  const languageOf = (id: string): Promise<LanguageHighlighting | undefined> => {
    let language = languages.get(id);
    if (language === undefined) {
      language = (async () => {
        // One engine for every registry: its cache keeps each expression translated once.
        engine ??= createJavaScriptRegexEngine({ forgiving: true, regexConstructor: translated.construct });
        try {
          const grammars = await grammarsOf(id);
          translated.load(id);
          const highlighting = languageHighlighting(engine, themes, grammars, id);
          if (highlighting !== undefined) registries.push(highlighting.registry);
          return highlighting;
        } catch {
          return undefined;
        }
      })();
      languages.set(id, language);
    }
    return language;
  };
  return {
    async ensure(language, code) {
      if (code.length > HIGHLIGHT_LIMIT) return undefined;
      const key = highlightKey(HIGHLIGHTING, language, code);
      const cached = store.read(key);
      if (cached !== undefined) return cached;
      const id = names.get(language.toLowerCase());
      const highlighting = id === undefined ? undefined : await languageOf(id);
      if (highlighting === undefined) return undefined;
      const html = highlightedHtml(highlighting.tokenizer.tokenize(highlighting.grammar, code));
      store.add(key, html);
      return html;
    },
    warm() {
      store.warm();
    },
    dispose() {
      store.close();
      for (const registry of registries) registry.dispose();
    },
  };
}
