// What the offline search index holds of a talk: its tool names and the
// start of its texts, calls and results.

import type { StepView, TalkView } from './views.ts';

/** How much of one part the offline search index takes: the prompt and the start of the reply. */
const SEARCH_TEXT = 600;
/** How much of one talk it takes. */
const MOST = SEARCH_TEXT * 4;

/** The words one step gives the search index by itself, its children apart: its tool's name and the start of each text, call and result. */
export function searchWordsOf(step: StepView): string[] {
  const words: string[] = [];
  if (step.toolName) words.push(step.toolName);
  for (const part of step.parts) if (part.kind === 'text' || part.kind === 'call' || part.kind === 'result') words.push(part.segments.map((segment) => segment.text).join(' ').slice(0, SEARCH_TEXT));
  return words;
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
