// The theme of the highlighted code and the style sheet made from its own
// colours: a token's colour is the class `h-<rgb>` (highlight.ts). Apart from
// the highlighter so that the export process, which writes the style sheet
// and renders no page, does not load shiki's highlighter, its regular
// expression engine and its language registry: loading the site stage took
// 215-227 ms with them and takes 98-134 ms without (six runs each).

import type { ThemeRegistrationResolved } from 'shiki/core';
import { bundledThemes } from 'shiki/themes';

export const THEME = 'github-light';

export async function loadTheme(): Promise<ThemeRegistrationResolved> {
  return (await bundledThemes[THEME]()).default as unknown as ThemeRegistrationResolved;
}

/** A class for every colour of the theme, and the two font styles. */
export async function highlightStyleSheet(): Promise<string> {
  const theme = await loadTheme();
  const colours = new Set<string>();
  const add = (value: unknown): void => {
    if (typeof value === 'string' && /^#[0-9a-fA-F]{3,8}$/.test(value)) colours.add(value);
  };
  add(theme.fg);
  for (const setting of theme.settings ?? theme.tokenColors ?? []) add(setting.settings?.foreground);
  return `${[...colours].sort().map((value) => `.h-${colourClass(value)}{color:${value}}`).join('\n')}\n.hi{font-style:italic}\n.hb{font-weight:bold}\n`;
}

/** The class part of a colour: `#24292E` is `24292e`. */
export function colourClass(value: string | undefined): string {
  return (value ?? 'none').replace('#', '').toLowerCase();
}
