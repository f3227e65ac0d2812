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

/** One renderer for the process: markdown-it's settings never change after it is made. */
const RENDERER = markdownRenderer();

/** `text` as HTML in which every character of the transcript is escaped and nothing is fetched or run. */
export function markdownHtml(text: string): string {
  return RENDERER.render(text);
}
