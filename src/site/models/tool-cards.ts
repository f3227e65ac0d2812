// A tool card's status and whether it starts open: what the card shows
// (views/tools.ts).

import type { StepView } from './views.ts';

export type ToolStatus = 'ok' | 'error' | 'no-result';

/** How the call ended: no result recorded, a result that failed, or results. */
export function toolStatus(step: StepView): ToolStatus {
  const results = step.parts.filter((part) => part.kind !== 'call');
  return results.length === 0 ? 'no-result' : results.some((part) => part.failed === true) ? 'error' : 'ok';
}

/** Whether the call is a subagent's: its card names the subagent and links to its transcript. */
export function isAgentCall(step: StepView): boolean {
  return step.kind === 'agent.call' || step.parts.find((part) => part.kind === 'call')?.tool?.kind === 'agent';
}

/** A failed call starts open, and so does a subagent's, so that its transcript's link is in view; any other starts closed. */
export function toolCardStartsOpen(step: StepView): boolean {
  return toolStatus(step) === 'error' || isAgentCall(step);
}
