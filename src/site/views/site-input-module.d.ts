// The virtual module an Astro build of the site gives its pages
// (generator/astro-build.mjs): the path of the build's site input file.
declare module 'virtual:sessionizer-site-input' {
  const inputFile: string;
  export default inputFile;
}
