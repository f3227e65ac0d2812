// The offline search index, a classic script: window.SESSIONIZER_SEARCH = [...].
// JSON with `<` escaped, so no text from a transcript can end the script.
import { sitePlan } from '../data/site.ts';

export function GET(): Response {
  const json = JSON.stringify(sitePlan().search).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return new Response(`window.SESSIONIZER_SEARCH = ${json};\n`);
}
