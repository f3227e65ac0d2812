// Highlighting for the pages, while Astro renders them, kept in a cache on
// disk (data/highlighted.ts) that later builds reuse. One shiki highlighter per process (core with the
// JavaScript regex engine: about 20 % faster than Oniguruma here and no wasm,
// research §5), languages loaded the first time a block asks for them.
//
// Output is class-based: a token's colour in the light theme becomes
// `h-<rgb>` and in the dark one `d-<rgb>`, and the style sheet is made from
// the themes' own colours (highlight-style.ts), since inline styles made
// pages about nine times the size of their code (research §5).

import { createHighlighterCore, type HighlighterCore } from 'shiki/core';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { bundledLanguages, bundledLanguagesAlias } from 'shiki/langs';
import type { StepView } from '../data/views.ts';
import { CACHE_VARIABLE, HIGHLIGHT_LIMIT, highlightKey, openHighlightStore } from '../data/highlighted.ts';
import { colourClass, loadThemes, THEME_PAIR, THEMES } from './highlight-style.ts';

export interface Highlighter {
  /** The highlighted HTML of a piece of code, from the cache or made and cached now; undefined when it stays plain. */
  ensure(language: string, code: string): Promise<string | undefined>;
  /** Does now what the first page would: reads the cache's indexes (77 ms of a renderer's 0.4 s of work, in a profile, after one conversation of the 200 MB benchmark corpus changed). */
  warm(): void;
  dispose(): void;
}

export async function createHighlighter(cache: string): Promise<Highlighter> {
  let core: HighlighterCore | undefined;
  const failed = new Set<string>();
  const store = openHighlightStore(cache);
  const themes = await loadThemes();
  const start = async (): Promise<HighlighterCore> => (core ??= await createHighlighterCore({ themes, langs: [], engine: createJavaScriptRegexEngine({ forgiving: true }) }));
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
      const key = highlightKey(THEME_PAIR, language, code);
      const cached = store.read(key);
      if (cached !== undefined) return cached;
      const loaded = await languageOf(language);
      if (loaded === undefined) return undefined;
      const lines = (await start()).codeToTokensWithThemes(code, { lang: loaded, themes: THEMES });
      const html = lines.map((line) => line.map(({ content, variants }) => `<span class="h-${colourClass(variants.light?.color)} d-${colourClass(variants.dark?.color)}${fontClasses(variants.light?.fontStyle)}">${escapeHtml(content)}</span>`).join('')).join('\n');
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

/** Fills in the highlighted HTML of every code segment a page shows. */
export async function highlightSteps(steps: readonly StepView[]): Promise<void> {
  const highlighter = await pageHighlighter();
  const visit = async (step: StepView): Promise<void> => {
    for (const part of step.parts) {
      for (const segment of part.segments) if (segment.language !== undefined && segment.html === undefined) segment.html = await highlighter.ensure(segment.language, segment.text);
    }
    for (const child of step.children) await visit(child);
  };
  for (const step of steps) await visit(step);
}

let shared: Promise<Highlighter> | undefined;

/** The highlighter of this build, on the cache the export stage names in the environment. */
export function pageHighlighter(): Promise<Highlighter> {
  const cache = process.env[CACHE_VARIABLE];
  if (cache === undefined) throw new Error(`the site's pages are highlighted into a cache: set ${CACHE_VARIABLE} (the export stage does)`);
  return (shared ??= createHighlighter(cache));
}

/** The classes of a token's font style: the paired themes style a token alike, so the light one's is taken. */
function fontClasses(fontStyle: number | undefined): string {
  return `${fontStyle && fontStyle & 1 ? ' hi' : ''}${fontStyle && fontStyle & 2 ? ' hb' : ''}`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}
