// A block's HTML as the browser's highlighter makes it
// (src/site/generator/browser-highlight.ts), in node: its language looked up
// by name among shiki's, each language in a registry of its own made once;
// undefined when its language is not shiki's. The tests compare what the browser
// shows, and shiki's own tokens, with it.

import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { grammarsOf, languageNames } from '../../src/site/generator/grammars.ts';
import { loadThemes } from '../../src/site/generator/highlight-style.ts';
import { highlightedHtml, languageHighlighting, type LanguageHighlighting } from '../../src/site/generator/highlight-html.ts';

export function browserHighlighter(): (language: string, code: string) => Promise<string | undefined> {
  const names = languageNames();
  const engine = createJavaScriptRegexEngine({ forgiving: true });
  const languages = new Map<string, LanguageHighlighting | undefined>();
  return async (language, code) => {
    const id = names.get(language.toLowerCase());
    if (id === undefined) return undefined;
    if (!languages.has(id)) languages.set(id, languageHighlighting(engine, await loadThemes(), await grammarsOf(id), id));
    const highlighting = languages.get(id);
    return highlighting && highlightedHtml(highlighting.tokenizer.tokenize(highlighting.grammar, code));
  };
}
