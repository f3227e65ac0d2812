// The shapes of Claude Code's identifiers, as they appear in file names.

// Case is significant: real corpora contain upper-case session ids
// (41090DAB-…), so every comparison is byte-exact and nothing is case-folded
// (seed design-notes/01 §1.13).
const SESSION_ID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isSessionId(name: string): boolean {
  return SESSION_ID.test(name);
}

// Agent ids are `a` and 16 hex digits on 2.1.2xx, but not as a rule: older
// versions wrote 8 hex digits (agent-3ea04571), others 7 (agent-a2271d1), and
// compaction helpers are named agent-acompact-946d2b. So an agent id is
// accepted by what makes it safe as a folder name, not by one version's
// shape. "main" is refused because it is the main stream's folder.
const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

export function isAgentId(name: string): boolean {
  return AGENT_ID.test(name) && name !== 'main';
}

// A workflow run id, as a folder name: wf_afa31e47-f6c.
const RUN_ID = /^wf_[A-Za-z0-9][A-Za-z0-9_-]*$/;

export function isRunId(name: string): boolean {
  return RUN_ID.test(name) && name.length <= 128;
}

/**
 * The run id in a workflow script's name, `<label>-wf_<run-id>.js`. A run id
 * contains hyphens (wf_afa31e47-f6c), so the name is split on the LAST
 * `-wf_`: a pattern that matches the first would swallow a label that itself
 * contains `-wf_`.
 */
export function scriptName(name: string): { label: string; run: string } | undefined {
  if (!name.endsWith('.js')) return undefined;
  const base = name.slice(0, -3);
  const split = base.lastIndexOf('-wf_');
  if (split < 0) return undefined;
  const run = base.slice(split + 1);
  if (!isRunId(run)) return undefined;
  return { label: base.slice(0, split), run };
}

/** `agent-<id>.jsonl` → id, `agent-<id>.meta.json` → id. */
export function agentFileName(name: string): { agent: string; type: 'transcript' | 'meta' } | undefined {
  if (!name.startsWith('agent-')) return undefined;
  let agent: string;
  let type: 'transcript' | 'meta';
  if (name.endsWith('.meta.json')) {
    agent = name.slice('agent-'.length, -'.meta.json'.length);
    type = 'meta';
  } else if (name.endsWith('.jsonl')) {
    agent = name.slice('agent-'.length, -'.jsonl'.length);
    type = 'transcript';
  } else {
    return undefined;
  }
  return isAgentId(agent) ? { agent, type } : undefined;
}
