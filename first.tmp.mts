import { createHighlighter } from './src/site/generator/highlight.ts';
import fs from 'node:fs';
const h = await createHighlighter(fs.mkdtempSync('/tmp/hc-'), 'node_modules/.cache/sessionizer-site/renderer-c78925d2ac3498df7d7749b33b19e982/expressions');
const code = 'const x = await fetch(url).then((r) => r.json());\nfunction f(a, b) { return a + b; }\nclass A extends B { constructor() { super(); this.x = 1; } }\n';
for (const [lang, c] of [['javascript', code], ['javascript', code + '// two'], ['typescript', code], ['typescript', code + '//2'], ['bash', 'ls -la | grep foo && echo "done $HOME"'], ['json', '{"a": [1, 2, {"b": null}]}']]) {
  const t = performance.now(); await h.ensure(lang, c); console.log(lang, (performance.now() - t).toFixed(1), 'ms');
}
h.dispose();
