// Highlighting for the pages, while Astro renders them, kept in a cache on
// disk (data/highlighted.ts) that later builds reuse. One shiki highlighter
// per rendering process, made by whoever opens its site reader
// (data/site-reader.ts): core with the JavaScript regex engine, faster than
// Oniguruma here and no wasm (research §5), languages loaded the first time
// a block asks for them. Each block is tokenized once for both themes
// (paired-tokens.ts).
//
// Output is class-based: a token's colour in the light theme becomes
// `h-<rgb>` and in the dark one `d-<rgb>`, and the style sheet is made from
// the themes' own colours (highlight-style.ts), since inline styles made
// pages many times the size of their code (research §5).

import { createHighlighterCore, type HighlighterCore } from 'shiki/core';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { bundledLanguages, bundledLanguagesAlias } from 'shiki/langs';
import { HIGHLIGHT_LIMIT, highlightKey, openHighlightStore } from '../data/highlighted.ts';
import type { CodeHighlighter } from '../data/site.ts';
import { colourClass, loadThemes, THEME_PAIR, THEMES } from './highlight-style.ts';
import { pairedTokenizer, type PairedTokenizer } from './paired-tokens.ts';

type LanguageLoader = () => Promise<{ default: unknown }>;

export interface Highlighter extends CodeHighlighter {
  /** The highlighted HTML of a piece of code, from the cache or made and cached now; undefined when it stays plain. */
  ensure(language: string, code: string): Promise<string | undefined>;
  /** Does now what the first page would: reads the cache's indexes. */
  warm(): void;
  dispose(): void;
}

export async function createHighlighter(cache: string): Promise<Highlighter> {
  let core: HighlighterCore | undefined;
  let tokenizer: PairedTokenizer | undefined;
  const failed = new Set<string>();
  const store = openHighlightStore(cache);
  const themes = await loadThemes();
  const start = async (): Promise<HighlighterCore> => (core ??= await createHighlighterCore({ themes, langs: [], engine: createJavaScriptRegexEngine({ forgiving: true }) }));
  // A language name comes from the transcript (a fence's info string, a
  // file's extension), so it is looked up among shiki's own entries only,
  // never through an object's prototype: `constructor` is no language.
  const loaders = new Map<string, LanguageLoader>([...Object.entries(bundledLanguagesAlias as Record<string, LanguageLoader>), ...Object.entries(bundledLanguages as Record<string, LanguageLoader>)]);
  const languageOf = async (language: string): Promise<string | undefined> => {
    const name = language.toLowerCase();
    const loader = loaders.get(name);
    if (loader === undefined || failed.has(name)) return undefined;
    const highlighter = await start();
    if (!highlighter.getLoadedLanguages().includes(name)) {
      try {
        await highlighter.loadLanguage((await loader()).default as Parameters<HighlighterCore['loadLanguage']>[0]);
      } catch {
        failed.add(name);
        return undefined;
      }
    }
    return name;
  };
  return {
    async ensure(language, code) {
      if (code.length > HIGHLIGHT_LIMIT) return undefined;
      const key = highlightKey(THEME_PAIR, language, code);
      const cached = store.read(key);
      if (cached !== undefined) return cached;
      const loaded = await languageOf(language);
      if (loaded === undefined) return undefined;
      const highlighter = await start();
      tokenizer ??= pairedTokenizer(highlighter.getTheme(THEMES.light), highlighter.getTheme(THEMES.dark));
      const lines = tokenizer.tokenize(highlighter.getLanguage(loaded), code);
      const html = lines.map((line) => line.map(({ content, light, dark }) => `<span class="h-${colourClass(light.color)} d-${colourClass(dark.color)}${fontClasses(light.fontStyle)}">${escapeHtml(content)}</span>`).join('')).join('\n');
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

/** The classes of a token's font style: the paired themes style a token alike, so the light one's is taken. */
function fontClasses(fontStyle: number | undefined): string {
  return `${fontStyle && fontStyle & 1 ? ' hi' : ''}${fontStyle && fontStyle & 2 ? ' hb' : ''}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
