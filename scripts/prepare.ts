// What `npm ci` prepares, as package.json's `prepare` script: the command's
// bundle (src/cli/kept-command.mjs) and the site's renderer
// (src/site/generator/site.ts), each made for the exact source and kept under
// node_modules/.cache. Without them, the first command builds the bundle and
// the first export makes the renderer first, the same way, which on a small
// history is most of the first export's time.
//
// Nothing here fails the install: what cannot be made now is made by the
// first command that needs it, as before, and this says so.

// A plain JavaScript module with no types: imported by a path the type checker does not follow.
const keptCommandModule: string = '../src/cli/kept-command.mjs';

const started = performance.now();
const said: string[] = [];
try {
  const { keptCommand } = (await import(keptCommandModule)) as { keptCommand(): Promise<unknown> };
  said.push((await keptCommand()) !== undefined ? 'the command bundle' : 'not the command bundle (the command runs through tsx)');
} catch (error) {
  said.push(`not the command bundle: ${(error as Error).message}`);
}
try {
  const { prepareRenderer } = await import('../src/site/generator/site.ts');
  const renderer = await prepareRenderer();
  said.push(renderer === 'failed' ? 'not the site renderer (the first export builds its site with Astro)' : `the site renderer${renderer === 'kept' ? ', kept already' : ''}`);
} catch (error) {
  said.push(`not the site renderer: ${(error as Error).message}`);
}
console.log(`sessionizer: prepared ${said.join(' and ')} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
