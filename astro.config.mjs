// The static site's build settings. The export stage (src/site/generator/site.ts)
// runs the build programmatically with a throwaway root and its own output
// folder, so paths here are absolute: nothing Astro writes lands in the
// repository or in the export beyond the pages.
import { fileURLToPath } from 'node:url';
import { defineConfig, passthroughImageService } from 'astro/config';

/**
 * Keeps what renders the pages, for the next export: the build bundles the
 * pages' code with an on-demand route (pages/render) into a server entry
 * point, which generator/render.mjs uses to render the pages of a few changed
 * conversations without another build. Astro's import and Vite's build are
 * most of a small build's time (see generator/site.ts).
 */
function keptRenderer() {
  return {
    name: 'sessionizer-kept-renderer',
    hooks: {
      'astro:config:done': ({ setAdapter }) =>
        setAdapter({
          name: 'sessionizer-kept-renderer',
          serverEntrypoint: fileURLToPath(new URL('./src/site/generator/renderer-entry.mjs', import.meta.url)),
          exports: ['open'],
          supportedAstroFeatures: { staticOutput: 'stable', hybridOutput: 'stable', serverOutput: 'stable' },
        }),
    },
  };
}

export default defineConfig({
  srcDir: fileURLToPath(new URL('./src/site', import.meta.url)),
  publicDir: fileURLToPath(new URL('./public', import.meta.url)),
  output: 'static',
  // c/<id>.html rather than c/<id>/index.html: file:// resolves no directory index.
  build: { format: 'file', inlineStylesheets: 'never' },
  adapter: keptRenderer(),
  // No page shows an image through Astro; the renderer needs no image service.
  image: { service: passthroughImageService() },
  devToolbar: { enabled: false },
  prefetch: false,
  // Astro's own in-page styles would be bundled to /_astro; the site links one plain style sheet instead.
  scopedStyleStrategy: 'class',
});
