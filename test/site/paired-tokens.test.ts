// The browser's highlighter tokenizes a block once for both themes
// (paired-tokens.ts, highlight-html.ts); its HTML must be, byte for byte,
// what shiki's codeToTokensWithThemes, which tokenizes once per theme, gave:
// the same tokens, split alike, with the same classes.

import { createHighlighterCore, type HighlighterCore } from 'shiki/core';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';
import { bundledLanguagesInfo } from 'shiki/langs';
import { describe, expect, it } from 'vitest';
import { grammarsOf } from '../../src/site/generator/grammars.ts';
import { loadThemes, THEMES } from '../../src/site/generator/highlight-style.ts';
import { colourClass } from '../../src/site/generator/colour-class.ts';
import { browserHighlighter } from './browser-highlighting.ts';

const SAMPLES: ReadonlyArray<readonly [string, string]> = [
  ['ts', 'import { a, type B } from "./b.ts";\n\nexport class C<T extends B = B> implements D {\n  private readonly x = `t ${a + 1} é`;\n  /** A doc comment with {@link C}. */\n  async *m(this: C<T>, ...rest: T[]): AsyncGenerator<number> {\n    yield* [1, 2n, 0x1f, 1e-3] as const;\n    return void (x?.y ?? z!) satisfies unknown;\n  }\n}\n/* unclosed block comment\n\n   spans an empty line */\nconst re = /a(?<n>b)+\\/[^/]*$/giu;\n'],
  ['typescript', 'enum E { A = 1 << 2, B = "b" }\ndeclare module "m" { export = x; }\n'],
  ['tsx', 'const e = <div className="a" onClick={() => f(1)}>{"x"} text &amp; </div>;\n'],
  ['js', '"use strict";\nfunction f(a = 1, { b, ...c } = {}) {\n  label: for (let i = 0; i < 10; i++) { if (i % 2) continue label; }\n  return new.target ?? this?.[a] >>> 0;\n}\n// a line comment\n'],
  ['javascript', 'const s = `multi\nline ${`nested ${1}`} template`;\n'],
  ['json', '{\n  "a": [1, 2.5e3, true, false, null],\n  "b": { "c": "d\\n\\u00e9" },\n  "bad": tru\n}\n'],
  ['jsonl', '{"type":"user","message":{"content":"hi"}}\n{"type":"assistant"}'],
  ['python', '@decorator(arg=1)\nasync def f(x: int, *args, **kwargs) -> "str":\n    """Docstring\n\n    spanning lines."""\n    y = f"{x!r:>10} {{braces}}" + rb\'\\x00\'\n    lambda z: z ** 2 if z else None\n    return [i for i in range(10) if i % 2 == 0]\n'],
  ['bash', '#!/usr/bin/env bash\nset -euo pipefail\nfor f in "$@"; do\n  echo "${f%.txt} $(basename "$f") $((1 + 2))" >> out.log 2>&1\ndone\ncat <<EOF\nheredoc $HOME\n\nEOF\n[[ -n "$x" ]] && exit 1 || true\n'],
  ['sh', 'ls -la | grep -v "^d" | awk \'{print $9}\'\n'],
  ['shell', 'export PATH="$HOME/bin:$PATH"'],
  ['diff', 'diff --git a/a.ts b/a.ts\nindex 1..2 100644\n--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@ function f()\n-const a = 1;\n+const a = 2;\n context\n\\ No newline at end of file\n'],
  ['markdown', '# Title\n\nSome *emphasis*, **strong**, `code`, [link](http://x.y "t").\n\n> quoted\n> lines\n\n- item\n  1. nested\n\n```ts\nconst a = 1;\n```\n\n```python\nprint("x")\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n'],
  ['md', '<details>\n<summary>html in markdown</summary>\n\n~~~\nplain fence\n~~~\n</details>\n'],
  ['html', '<!DOCTYPE html>\n<html lang="en">\n<head>\n<style>\n  body { color: #fff; margin: 0 auto; }\n</style>\n<script type="module">\n  const a = "</scr" + "ipt>";\n  if (a < 1 && b > 2) {}\n</script>\n</head>\n<body><!-- comment --><p class="x" data-y=\'z\'>text &amp; &#169;</p></body>\n</html>\n'],
  ['css', '@media (prefers-color-scheme: dark) {\n  .a > .b:hover::after, #id[data-x="y"] {\n    color: rgb(0 0 0 / 50%);\n    --var: calc(1px + 2em) !important;\n  }\n}\n'],
  ['go', 'package main\n\nimport (\n\t"fmt"\n)\n\n// Comment\nfunc (r *R) M[T any](x []T) (int, error) {\n\tch := make(chan struct{}, 1)\n\tdefer close(ch)\n\treturn fmt.Printf("%d\\n", len(x)), nil\n}\n'],
  ['rust', '#[derive(Debug, Clone)]\npub struct S<\'a, T: Trait + ?Sized> { x: &\'a T }\nimpl<T> S<\'_, T> {\n    pub fn f(&mut self) -> Result<(), Box<dyn Error>> {\n        let r = r#"raw "string""#;\n        match x { Some(1..=9) => println!("{r}"), _ => unreachable!() }\n        Ok(())\n    }\n}\n'],
  ['yaml', '# comment\nkey: value\nlist:\n  - a\n  - "quoted: string"\n  - &anchor { inline: [1, 2] }\nblock: |\n  literal\n\n  text\nref: *anchor\n---\nother: !!str 1\n'],
  ['yml', 'a: b'],
  ['ts', ''],
  ['python', '    '],
  ['js', '\n\n\n'],
  ['ts', 'const café = "日本語 🎉 e\u0301 \u200b";\nconst 𝑥 = "\ud83d\ude00";\n'],
  ['html', '<script>alert("</script>")</script>\n</script>'],
  ['js', 'document.write("</script><script>alert(1)</script>");'],
  ['ts', 'const a = 1;\r\nconst b = 2;\r\n\r\n// crlf\r\n'],
  ['ts', 'line one\rstill one\n'],
  ['python', '\tif x:\n\t\tpass  \n'],
  ['no-such-language', 'const a = 1;'],
  ['', 'nothing'],
  ['TS', 'const upper = "case";'],
  // Grammars that embed others: each language's registry holds its own, whatever was highlighted before.
  ['vue', '<template>\n  <div :class="{ a: b }" @click="go(1)">{{ message }}</div>\n</template>\n<script setup lang="ts">\nconst message: string = "hi";\n</script>\n<style scoped>\n.a { color: red; }\n</style>\n'],
  ['sql', 'SELECT a.id, COUNT(*) AS n FROM accounts a LEFT JOIN orders o ON o.account_id = a.id WHERE a.created > \'2024-01-01\' GROUP BY a.id HAVING n > 2;\n-- a comment\n'],
];

/**
 * The HTML as shiki makes it: each theme's tokens, merged by shiki, from a
 * highlighter that loads the language's own grammars (grammarsOf) alone,
 * whatever was highlighted before.
 */
async function referenceHtml(cores: Map<string, HighlighterCore>, language: string, code: string): Promise<string | undefined> {
  const name = bundledLanguagesInfo.find(({ id, aliases }) => id === language.toLowerCase() || aliases?.includes(language.toLowerCase()))?.id;
  if (name === undefined) return undefined;
  let core = cores.get(name);
  if (core === undefined) cores.set(name, (core = await createHighlighterCore({ themes: await loadThemes(), langs: await grammarsOf(name), engine: createJavaScriptRegexEngine({ forgiving: true }) })));
  const lines = core.codeToTokensWithThemes(code, { lang: name, themes: THEMES, tokenizeTimeLimit: 0 });
  const fonts = (fontStyle: number | undefined): string => `${fontStyle && fontStyle & 1 ? ' hi' : ''}${fontStyle && fontStyle & 2 ? ' hb' : ''}`;
  const escape = (text: string): string => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
  return lines.map((line) => line.map(({ content, variants }) => `<span class="h-${colourClass(variants.light?.color)} d-${colourClass(variants.dark?.color)}${fonts(variants.light?.fontStyle)}">${escape(content)}</span>`).join('')).join('\n');
}

describe('highlighting each block once for both themes', () => {
  it('gives the HTML shiki’s tokens of each theme gave, in every language of the sample', { timeout: 60_000 }, async () => {
    const highlight = browserHighlighter();
    const cores = new Map<string, HighlighterCore>();
    const made: Array<string | undefined> = [];
    const expected: Array<string | undefined> = [];
    // Twice: the second pass highlights after every language, as the first did before them.
    for (const pass of [1, 2]) {
      for (const [language, code] of SAMPLES) {
        made.push(await highlight(language, pass === 1 ? code : `${code}\n`));
        expected.push(await referenceHtml(cores, language, pass === 1 ? code : `${code}\n`));
      }
    }
    for (const core of cores.values()) core.dispose();
    expect(made).toEqual(expected);
    expect(made.filter((html) => html !== undefined).length).toBe(2 * (SAMPLES.length - 2));
    // The sample splits tokens where only one theme's colour changes, and styles some.
    expect(made.join('')).toMatch(/ hi"/);
  });
});
