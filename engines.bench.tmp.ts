// Per-grammar cost of shiki's JavaScript RegExp engine and the Oniguruma WASM engine on the corpus's blocks, and whether their tokens agree.
import fs from 'node:fs';
import { createHighlighterCore } from 'shiki/core';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { createOnigurumaEngine } from 'shiki/engine/oniguruma';
import { bundledLanguages, bundledLanguagesInfo } from 'shiki/langs';
import { loadThemes, THEMES } from './src/site/generator/highlight-style.ts';
const blocks: { lang: string; text: string }[] = JSON.parse(fs.readFileSync('/tmp/hl/blocks.json', 'utf8'));
const themes = await loadThemes();
const idOf = (name: string) => bundledLanguagesInfo.find((i) => i.id === name || i.aliases?.includes(name))?.id;
const byLang = new Map<string, string[]>();
for (const b of blocks) { const id = idOf(b.lang); if (!id) continue; (byLang.get(id) ?? byLang.set(id, []).get(id)!).push(b.text); }
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const onig = await createOnigurumaEngine(import('shiki/wasm'));
const rows: string[] = [];
let totals = { js: 0, onig: 0, differ: 0, blocks: 0 };
for (const [id, texts] of [...byLang].sort((a, b) => b[1].join('').length - a[1].join('').length)) {
  const mod = (await (bundledLanguages as any)[id]()).default;
  const run = async (engine: any) => {
    const start = cpu();
    const core = await createHighlighterCore({ themes, langs: mod, engine });
    const loaded = cpu();
    const out = texts.map((t) => JSON.stringify(core.codeToTokensBase(t, { lang: id, theme: THEMES.light }).map((l) => l.map((x) => [x.content, x.color, x.fontStyle]))));
    const end = cpu();
    core.dispose();
    return { out, ms: end - start };
  };
  const js = await run(createJavaScriptRegexEngine({ forgiving: true }));
  const on = await run(onig);
  const differ = texts.filter((_, i) => js.out[i] !== on.out[i]).length;
  totals.js += js.ms; totals.onig += on.ms; totals.differ += differ; totals.blocks += texts.length;
  rows.push(`${id.padEnd(12)} ${String(texts.length).padStart(5)} ${String(texts.join('').length).padStart(8)} js ${js.ms.toFixed(0).padStart(6)} ms  onig ${on.ms.toFixed(0).padStart(6)} ms  differ ${differ}`);
  if (differ && process.env.SHOW) { const i = texts.findIndex((_, i) => js.out[i] !== on.out[i]); fs.writeFileSync(`/tmp/hl/differ-${id}.json`, JSON.stringify({ text: texts[i], js: JSON.parse(js.out[i]!), onig: JSON.parse(on.out[i]!) })); }
}
console.log(rows.join('\n'));
console.log(totals);
