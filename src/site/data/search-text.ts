// What the offline search index holds of a talk: its tool names and the
// start of its texts, calls and results.

import type { PartView, StepView, TalkView } from './views.ts';

/** How much of one part the offline search index takes: the prompt and the start of the reply. */
const SEARCH_TEXT = 600;
/** How much of one talk it takes. */
const MOST = SEARCH_TEXT * 4;

/** The words one step gives the search index by itself, its children apart: its tool's name and the start of each text, call and result. */
export function searchWordsOf(step: StepView): string[] {
  return stepWords(step.toolName, step.parts.map(partWord));
}

/** A step's own words for the search index, from its tool's name and its parts' words (partWord). */
export function stepWords(toolName: string | undefined, partWords: readonly (string | undefined)[]): string[] {
  return [...(toolName ? [toolName] : []), ...partWords.flatMap((word) => word ?? [])];
}

/**
 * What one part gives the search index: the start of a text, a call or a
 * result; nothing of anything else. The plan keeps these words while the
 * texts are gone (row-outline.ts), so each is a string made anew from its
 * characters: a piece cut from a string, as a segment or this start may
 * be, keeps the whole string alive in V8. Made so, 76,000 words of 600
 * characters took 51 ms, against 79-91 ms through JSON.
 */
export function partWord(part: PartView): string | undefined {
  if (part.kind !== 'text' && part.kind !== 'call' && part.kind !== 'result') return undefined;
  return Buffer.from(part.segments.map((segment) => segment.text).join(' ').slice(0, SEARCH_TEXT), 'utf16le').toString('utf16le');
}

/**
 * A talk's search text: the words of its steps, loose ones first, then its
 * runs', each step before its children, white space made single spaces, cut
 * at MOST. `wordsOf` gives a step's own words: from its parts, or as noted
 * when the step was made, for a structure that holds no parts (streams.ts).
 */
export function searchText(talk: Pick<TalkView, 'loose' | 'runs'>, wordsOf: (step: StepView) => readonly string[] = searchWordsOf): string {
  const words: string[] = [];
  // Each word is taken with its white space runs made one space; joined,
  // the words are at least their lengths so made, less one for each join (a
  // join can merge a word's last space, the joining one and the next word's
  // first). Once that is enough, the words after cannot change what is kept,
  // and they are not read: a talk of a long conversation holds hundreds of
  // parts of up to 32 KB each.
  let least = 1;
  const visit = (steps: readonly StepView[]): void => {
    for (const step of steps) {
      if (least > MOST) return;
      for (const word of wordsOf(step)) {
        const single = word.replace(/\s+/g, ' ');
        words.push(single);
        least += single.length - 1;
      }
      visit(step.children);
    }
  };
  visit(talk.loose);
  for (const run of talk.runs) visit(run.steps);
  return words.join(' ').replace(/\s+/g, ' ').slice(0, MOST);
}
