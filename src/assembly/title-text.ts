// A title as words on one line. Titles come from a runtime's records and
// from prompts people typed, and both hold markup: a runtime's own tags (a
// slash command's, a caveat it added) and markdown ("## 🔴 PRE-FLIGHT",
// "**CHECK** this"). The runtime's tags are its adapter's to read
// (adapters/built-in.ts, runtimeTitleText); the marks of markdown, in what is
// written as markdown (a prompt, a task), are read here, by markdown-it, the
// site's renderer too, and only the words are kept:
// a heading's, a list item's with its number, a link's words, inline code's
// and a code block's text, an image's description. Emoji, and tags a person
// typed (`html: false` reads them as text), stay as they are.

import MarkdownIt from 'markdown-it';
import { runtimeTitleText } from '../adapters/built-in.ts';

type Token = ReturnType<InstanceType<typeof MarkdownIt>['parse']>[number];

/** One parser for the process: markdown-it's settings never change after it is made. */
const PARSER = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** The words of markdown `text`, each block's after the one before, with a space between. */
function markdownWords(text: string): string {
  const words: string[] = [];
  const take = (tokens: readonly Token[]): void => {
    for (const token of tokens) {
      switch (token.type) {
        case 'text':
        case 'code_inline':
          words.push(token.content);
          break;
        case 'softbreak':
        case 'hardbreak':
          words.push(' ');
          break;
        case 'inline':
        case 'image':
          take(token.children ?? []);
          break;
        case 'fence':
        case 'code_block':
          words.push(` ${token.content} `);
          break;
        case 'list_item_open':
          // An ordered item keeps its number ("1." or "1)"), which the list's steps are read by.
          words.push(token.info !== '' ? ` ${token.info}${token.markup} ` : ' ');
          break;
        default:
          if (token.nesting !== 0 && token.block) words.push(' ');
      }
    }
  };
  take(PARSER.parse(text, {}));
  return words.join('');
}

/** White space runs made one space, the ends trimmed. */
export function singleSpaced(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A title a runtime recorded (one the person gave, one it generated, a
 * summary) as a title shows it: without the runtime's markup, on one line.
 * Such a title is plain text, not markdown: `__init__.py` stays as it is.
 * Undefined when no words are left, or when the runtime says the text is
 * its own and titles nothing.
 */
export function recordedTitleText(text: string): string | undefined {
  const words = runtimeTitleText(text);
  const plain = words === undefined ? '' : singleSpaced(words);
  return plain === '' ? undefined : plain;
}

/**
 * A prompt, a slash command or a subagent's task as a title shows it: without
 * the runtime's markup and the marks of markdown, which a prompt is written
 * in and a page renders it as, on one line. Undefined when no words are
 * left, or when the runtime says the text is its own and titles nothing.
 */
export function promptTitleText(text: string): string | undefined {
  const words = runtimeTitleText(text);
  const plain = words === undefined ? '' : singleSpaced(markdownWords(words));
  return plain === '' ? undefined : plain;
}
