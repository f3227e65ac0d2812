// The class part of a theme's colour, which the highlighted code's spans
// (highlight-html.ts) and the style sheet (highlight-style.ts) both name, in
// a module of its own (highlight-style.ts says why).

/** The class part of a colour: `#24292E` is `24292e`. */
export function colourClass(value: string | undefined): string {
  return (value ?? 'none').replace('#', '').toLowerCase();
}
