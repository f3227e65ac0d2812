// The themes of the highlighted code and the style sheet made from their own
// colours: shiki's paired light and dark themes, a token's light colour the
// class `h-<rgb>` and its dark colour the class `d-<rgb>` (colour-class.ts).
// Classes, not shiki's inline styles: the pages' content security policy
// allows style sheets of the site's own only. Apart from the highlighter so
// that the export process, which writes the style sheet, does not load
// shiki's regular expression engine and its language registry.

import type { ThemeRegistrationResolved } from 'shiki/core';
import { bundledThemes } from 'shiki/themes';
import { colourClass } from './colour-class.ts';

export const THEMES = { light: 'github-light', dark: 'github-dark' } as const;

/** The pair of themes, light then dark. */
export async function loadThemes(): Promise<[ThemeRegistrationResolved, ThemeRegistrationResolved]> {
  const load = async (name: string): Promise<ThemeRegistrationResolved> => (await bundledThemes[name as keyof typeof bundledThemes]()).default as unknown as ThemeRegistrationResolved;
  return [await load(THEMES.light), await load(THEMES.dark)];
}

/**
 * A class for every colour of each theme, and the two font styles. The dark
 * theme's rules come after the light one's, under the dark colour scheme on
 * a screen (a printed page stays light), so that they win.
 */
export async function highlightStyleSheet(): Promise<string> {
  const [light, dark] = await loadThemes();
  const rules = (theme: ThemeRegistrationResolved, prefix: string): string[] => [...coloursOf(theme)].sort().map((value) => `.${prefix}-${colourClass(value)}{color:${value}}`);
  return `${rules(light!, 'h').join('\n')}\n@media screen and (prefers-color-scheme: dark) {\n${rules(dark!, 'd').join('\n')}\n}\n.hi{font-style:italic}\n.hb{font-weight:bold}\n`;
}

function coloursOf(theme: ThemeRegistrationResolved): Set<string> {
  const colours = new Set<string>();
  const add = (value: unknown): void => {
    if (typeof value === 'string' && /^#[0-9a-fA-F]{3,8}$/.test(value)) colours.add(value);
  };
  add(theme.fg);
  add(theme.colors?.['editor.foreground']);
  for (const setting of theme.settings ?? theme.tokenColors ?? []) add(setting.settings?.foreground);
  return colours;
}
