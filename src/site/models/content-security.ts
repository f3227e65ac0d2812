// The content security policy of every page, as a meta element: nothing
// remote, one origin for style sheets, scripts and images (the site's own
// files and data: images), no inline script or style, no base and no form.
// The Astro pages (views/Page.astro) and the evidence pages, written
// without Astro (generator/evidence-pages.ts), take it from here.

export const CONTENT_SECURITY_POLICY = "default-src 'none'; img-src 'self' data:; style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'none'";
