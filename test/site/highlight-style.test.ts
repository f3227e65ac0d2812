// The style sheet of highlighted code (generator/highlight-style.ts): a class
// for every colour of the light theme, then, under a dark colour scheme on a
// screen alone, one for every colour of the dark theme, so that the dark rules
// win there and a printed page stays light.

import { describe, expect, it } from 'vitest';
import { highlightStyleSheet, loadThemes } from '../../src/site/generator/highlight-style.ts';
import { colourClass } from '../../src/site/generator/colour-class.ts';

describe('the highlighted code style sheet', () => {
  it('colours the light theme first and the dark one under a dark screen', async () => {
    const sheet = await highlightStyleSheet();
    const darkFrom = sheet.indexOf('@media screen and (prefers-color-scheme: dark) {');
    expect(darkFrom).toBeGreaterThan(0);
    const before = sheet.slice(0, darkFrom);
    const within = sheet.slice(darkFrom, sheet.indexOf('}\n.hi', darkFrom));
    // Each rule's class is its own colour's (colourClass), light and dark alike.
    for (const [part, prefix] of [[before, 'h'], [within, 'd']] as const) {
      const rules = [...part.matchAll(new RegExp(`\\.${prefix}-([0-9a-f]+)\\{color:(#[0-9a-fA-F]+)\\}`, 'g'))];
      expect(rules.length).toBeGreaterThan(10);
      for (const [, name, colour] of rules) expect(name).toBe(colourClass(colour));
    }
    const [light, dark] = await loadThemes();
    expect([light!.name, dark!.name]).toEqual(['github-light', 'github-dark']);
    expect(before).not.toMatch(/\.d-/);
    expect(within).not.toMatch(/\.h-/);
    expect(sheet).toMatch(/\.hi\{font-style:italic\}\n\.hb\{font-weight:bold\}\n$/);
    expect(sheet).not.toContain('filter');
  });
});
