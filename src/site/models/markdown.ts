// Transcript text as HTML, by markdown-it: headings, lists, tables,
// emphasis, inline code. Raw HTML is never passed through (`html: false`
// escapes it as text), a link is made only for an http(s) address and is
// shown with that address, and an image is never fetched: it is shown as its
// description and address, as text. Fenced code is not handled here: prose
// is cut at its fences first (parts.ts, prose) and the code highlighted by
// shiki.

import MarkdownIt from 'markdown-it';
import { WEB_ADDRESS } from './web-address.ts';

function markdownRenderer(): InstanceType<typeof MarkdownIt> {
  // A line break is kept as one (`breaks`): a prompt typed or pasted line by
  // line, and a reply's lines like "**Task 1**: …" then "**Task 2**: …", were
  // written to be read as the terminal shows them, not joined into a paragraph.
  const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: true });
  keepIndentsAfterBreaks(markdown);
  // Autolinks (<https://…>) and links alike pass through here: anything but http(s) stays text.
  markdown.validateLink = (url) => WEB_ADDRESS.test(url.trim());
  const rules = markdown.renderer.rules;
  rules.link_open = (tokens, index, options, _environment, self) => {
    const token = tokens[index]!;
    token.attrSet('rel', 'noopener noreferrer nofollow');
    return self.renderToken(tokens, index, options);
  };
  rules.link_close = (tokens, index, options, _environment, self) => {
    // The address follows the link's words unless they are the address.
    let open = index - 1;
    while (open >= 0 && tokens[open]!.type !== 'link_open') open--;
    const href = open >= 0 ? String(tokens[open]!.attrGet('href') ?? '') : '';
    const words = tokens.slice(open + 1, index).map((token) => token.content).join('');
    const address = words === href || words === href.replace(/^https?:\/\//i, '') ? '' : ` <span class="address">(${markdown.utils.escapeHtml(href)})</span>`;
    return `${self.renderToken(tokens, index, options)}${address}`;
  };
  rules.image = (tokens, index) => {
    const token = tokens[index]!;
    const source = String(token.attrGet('src') ?? '');
    return `<span class="image-ref">[image: ${markdown.utils.escapeHtml(token.content)}] ${markdown.utils.escapeHtml(source)}</span>`;
  };
  return markdown;
}

/**
 * The spaces that start a line after a line break, kept: markdown drops
 * them, and a JSON object, a stack trace or a command's output pasted into a
 * prompt without a fence then reads as one flat column. They are written as
 * they are, in a span the style sheet lays out as written, so that a copy
 * of the text copies spaces.
 */
function keepIndentsAfterBreaks(markdown: InstanceType<typeof MarkdownIt>): void {
  // The rule by the name markdown-it registered it under: a function's own name need not survive a bundler.
  type InlineRule = Parameters<typeof markdown.inline.ruler.at>[1];
  const newline = (markdown.inline.ruler as unknown as { __rules__: { name: string; fn: InlineRule }[] }).__rules__.find((rule) => rule.name === 'newline')?.fn;
  if (newline === undefined) throw new Error('markdown-it has no newline rule to keep indents after');
  markdown.inline.ruler.at('newline', (state, silent) => {
    const start = state.pos;
    if (!newline(state, silent)) return false;
    // The rule skipped the next line's leading spaces and tabs after the line feed.
    const indent = state.src.slice(start + 1, state.pos);
    if (!silent && indent !== '') state.push('line_indent', '', 0).content = indent;
    return true;
  });
  markdown.renderer.rules.line_indent = (tokens, index) => `<span class="indent">${markdown.utils.escapeHtml(tokens[index]!.content)}</span>`;
}

/** One renderer for the process: markdown-it's settings never change after it is made. */
const RENDERER = markdownRenderer();

/** `text` as HTML in which every character of the transcript is escaped and nothing is fetched or run. */
export function markdownHtml(text: string): string {
  return RENDERER.render(text);
}
