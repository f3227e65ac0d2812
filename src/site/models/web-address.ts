// Which links may leave the site: an http(s) address with a host. Markdown
// makes links of these alone (markdown.ts), and the link rewrite lets these
// alone through (generator/relative-links.ts). A module of its own, with no
// imports, so that the export's process, which rewrites links but renders
// no markdown, does not load markdown-it for it.

/** A link may leave the site only for an http(s) host. */
export const WEB_ADDRESS = /^https?:\/\/[^/]/i;
