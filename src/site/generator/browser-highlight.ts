// The highlighter of the site's pages, in the browser: the export leaves
// every block of code plain (views/talks.ts, codeHtml), and public/page.js
// loads this script when a block is first shown, on the screen or about
// to be, and has it highlighted here, with shiki's grammars, its paired
// themes and its JavaScript engine (highlight-html.ts). The export would pay
// for every block, most of which no reader opens; a reader pays for a
// language's grammar once per page, when its first block comes into view
// (bench/results/peers-2026-12-06-stop-48.md). Bundled by esbuild when the
// renderer is made (browser-code.ts), as a classic script: module scripts
// and fetch fail from file://. A language's grammars are scripts of their
// own, zstd-compressed, loaded as a block first needs them.

import { decompress } from 'fzstd';
import type { LanguageRegistration, RegexEngine, ThemeRegistrationResolved } from 'shiki/core';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { highlightedHtml, languageHighlighting, type LanguageHighlighting } from './highlight-html.ts';

/** What the highlighter knows, written into this script when it is bundled (browser-code.ts, writeBrowserCode). */
declare const SESSIONIZER_CODE_TABLE: {
  /** Every name a language is known by, to its id (grammars.ts, languageNames). */
  readonly names: Record<string, string>;
  /** Each language's grammars by name, in the order they are registered (grammars.ts, grammarsOf). */
  readonly languages: Record<string, string[]>;
  /** The script of each grammar, from this script's folder. */
  readonly files: Record<string, string>;
  readonly themes: [ThemeRegistrationResolved, ThemeRegistrationResolved];
};

/** The little of the page's DOM this script uses: the project is typed for node, not the DOM. */
interface Block {
  readonly textContent: string | null;
  innerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
}
interface Script {
  src: string;
  onerror: (() => void) | null;
}
interface Page {
  readonly document: {
    readonly currentScript: { readonly src: string } | null;
    readonly head: { appendChild(script: Script): void };
    createElement(tag: 'script'): Script;
  };
  /** The highlighter this script gives the page. */
  SESSIONIZER_HIGHLIGHT?: (block: Block) => Promise<void>;
  /** What each grammar's script calls with its grammar. */
  SESSIONIZER_GRAMMAR?: (name: string, compressed: string) => void;
}

(function () {
  const scope = globalThis as unknown as Page;
  const document = scope.document;
  const table = SESSIONIZER_CODE_TABLE;
  const here = document.currentScript?.src.replace(/[^/]*$/, '') ?? '';
  const grammars = new Map<string, Promise<LanguageRegistration>>();
  const arrived = new Map<string, (grammar: LanguageRegistration) => void>();
  const languages = new Map<string, Promise<LanguageHighlighting | undefined>>();
  let engine: RegexEngine | undefined;

  scope.SESSIONIZER_GRAMMAR = (name, compressed) => {
    const bytes = Uint8Array.from(atob(compressed), (character) => character.charCodeAt(0));
    arrived.get(name)?.(JSON.parse(new TextDecoder().decode(decompress(bytes))) as LanguageRegistration);
  };

  const grammar = (name: string): Promise<LanguageRegistration> => {
    let loading = grammars.get(name);
    if (loading === undefined) {
      loading = new Promise((resolve, reject) => {
        arrived.set(name, resolve);
        const script = document.createElement('script');
        script.src = here + table.files[name]!;
        script.onerror = () => reject(new Error(`${script.src} did not load`));
        document.head.appendChild(script);
      });
      grammars.set(name, loading);
    }
    return loading;
  };

  const language = (id: string): Promise<LanguageHighlighting | undefined> => {
    let loading = languages.get(id);
    if (loading === undefined) {
      loading = Promise.all((table.languages[id] ?? []).map(grammar)).then((registrations) => {
        engine ??= createJavaScriptRegexEngine({ forgiving: true });
        return registrations.length === 0 ? undefined : languageHighlighting(engine, table.themes, registrations, id);
      });
      languages.set(id, loading);
    }
    return loading;
  };

  /**
   * Highlights a block the export left for the browser (data-highlight="when-shown"),
   * once: only blocks short enough to highlight are left so (models/languages.ts,
   * mayHighlight); one in a language shiki does not know stays plain.
   */
  scope.SESSIONIZER_HIGHLIGHT = async (block) => {
    if (block.getAttribute('data-highlight') !== 'when-shown') return;
    block.setAttribute('data-highlight', 'highlighting');
    const code = block.textContent ?? '';
    // A name from the transcript: looked up among the table's own entries, never through its prototype.
    const name = (block.getAttribute('data-language') ?? '').toLowerCase();
    const id = Object.hasOwn(table.names, name) ? table.names[name] : undefined;
    try {
      const highlighting = id === undefined ? undefined : await language(id);
      if (highlighting !== undefined) block.innerHTML = highlightedHtml(highlighting.tokenizer.tokenize(highlighting.grammar, code));
    } finally {
      block.removeAttribute('data-highlight');
    }
  };
})();
