// The evidence pages' scripts run in Node, for the tests that read an
// evidence page's rows: the zstd decoder as the site holds it, then
// public/evidence.js, in a context of their own with no document, where the
// script hands its functions over (SESSIONIZER_EVIDENCE) and shows nothing.

import fs from 'node:fs';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import { zstdDecoderScript } from '../../src/site/generator/evidence-pages.ts';

export interface EvidenceScript {
  prettyJson(text: string): string;
  sizeText(count: number): string;
  linesOf(bytes: Uint8Array): Uint8Array[];
  landedBytes(base64: string): Uint8Array;
}

const SCRIPT = fileURLToPath(new URL('../../public/evidence.js', import.meta.url));

/** The functions of public/evidence.js, with the site's zstd decoder loaded before it. */
export function evidenceScript(): EvidenceScript {
  const context = vm.createContext({ atob });
  vm.runInContext(zstdDecoderScript(), context);
  vm.runInContext(fs.readFileSync(SCRIPT, 'utf8'), context);
  return (context as { SESSIONIZER_EVIDENCE: EvidenceScript }).SESSIONIZER_EVIDENCE;
}

/** The base64 text an evidence page holds its rows in. */
export function evidenceData(html: string): string {
  const found = /<div class="evidence-data" hidden>([^<]*)<\/div>/.exec(html);
  if (!found) throw new Error('the page holds no rows');
  return found[1]!;
}

/** The rows of an evidence page, as the browser reads them: its landed lines, decoded as UTF-8. */
export function evidenceRows(html: string, script = evidenceScript()): string[] {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  return script.linesOf(script.landedBytes(evidenceData(html))).map((line) => decoder.decode(line));
}
