// Highlighting for the pages, while Astro renders them, kept in a cache on
// disk (data/highlighted.ts) that later builds reuse. One shiki highlighter
// per rendering process, made by whoever opens its site reader
// (data/site-reader.ts): core with the JavaScript regex engine, faster than
// Oniguruma here and no wasm (research §5), languages loaded the first time
// a block asks for them.
//
// Output is class-based: a token's colour becomes `h-<rgb>`, and the style
// sheet is made from the theme's own colours (highlight-style.ts), since
// inline styles made pages many times the size of their code (research §5).

import { createHighlighterCore, type HighlighterCore } from 'shiki/core';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { bundledLanguages, bundledLanguagesAlias } from 'shiki/langs';
import { HIGHLIGHT_LIMIT, highlightKey, openHighlightStore } from '../data/highlighted.ts';
import type { CodeHighlighter } from '../data/site.ts';
import { colourClass, loadTheme, THEME } from './highlight-style.ts';

export interface Highlighter extends CodeHighlighter {
  /** The highlighted HTML of a piece of code, from the cache or made and cached now; undefined when it stays plain. */
  ensure(language: string, code: string): Promise<string | undefined>;
  /** Does now what the first page would: reads the cache's indexes. */
  warm(): void;
  dispose(): void;
}

export async function createHighlighter(cache: string): Promise<Highlighter> {
  let core: HighlighterCore | undefined;
  const failed = new Set<string>();
  const store = openHighlightStore(cache);
  const theme = await loadTheme();
  const start = async (): Promise<HighlighterCore> => (core ??= await createHighlighterCore({ themes: [theme], langs: [], engine: createJavaScriptRegexEngine({ forgiving: true }) }));
  const languageOf = async (language: string): Promise<string | undefined> => {
    const name = language.toLowerCase();
    const known = name in bundledLanguages ? name : (bundledLanguagesAlias as Record<string, unknown>)[name] !== undefined ? name : undefined;
    if (known === undefined || failed.has(known)) return undefined;
    const highlighter = await start();
    if (!highlighter.getLoadedLanguages().includes(known)) {
      try {
        const loader = (bundledLanguages as Record<string, () => Promise<{ default: unknown }>>)[known] ?? (bundledLanguagesAlias as Record<string, () => Promise<{ default: unknown }>>)[known]!;
        await highlighter.loadLanguage((await loader()).default as Parameters<HighlighterCore['loadLanguage']>[0]);
      } catch {
        failed.add(known);
        return undefined;
      }
    }
    return known;
  };
  return {
    async ensure(language, code) {
      if (code.length > HIGHLIGHT_LIMIT) return undefined;
      const key = highlightKey(language, code);
      const cached = store.read(key);
      if (cached !== undefined) return cached;
      const loaded = await languageOf(language);
      if (loaded === undefined) return undefined;
      const { tokens } = (await start()).codeToTokens(code, { lang: loaded, theme: THEME });
      const html = tokens.map((line) => line.map((token) => `<span class="h-${colourClass(token.color)}${token.fontStyle && token.fontStyle & 1 ? ' hi' : ''}${token.fontStyle && token.fontStyle & 2 ? ' hb' : ''}">${escapeHtml(token.content)}</span>`).join('')).join('\n');
      store.add(key, html);
      return html;
    },
    warm() {
      store.warm();
    },
    dispose() {
      store.close();
      core?.dispose();
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
