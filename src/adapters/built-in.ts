// The adapters this build has. A collection worker finds the one its task
// names here, rather than importing it by its module's URL: a worker running
// the kept command's bundle (cli/kept-command.mjs) has no TypeScript loader
// to import a source file with.

import type { Adapter } from './adapter.ts';
import { firstShortArgument, type ToolDescription } from '../model/tools.ts';
import { claudeCodeAdapter } from './claude-code/adapter.ts';

export const BUILT_IN_ADAPTERS: readonly Adapter[] = [claudeCodeAdapter];

/** The runtime the commands read: Claude Code, the one runtime this build has an adapter for. */
export const DEFAULT_ADAPTER: Adapter = claudeCodeAdapter;

/** The adapter at `location`: a built-in one, else the export of that module (an adapter of a test, say). */
export async function adapterAt(location: Adapter['location']): Promise<Adapter> {
  const builtIn = BUILT_IN_ADAPTERS.find((adapter) => adapter.location.module === location.module && adapter.location.export === location.export);
  if (builtIn) return builtIn;
  const adapter = ((await import(location.module)) as Record<string, Adapter | undefined>)[location.export];
  if (!adapter) throw new Error(`${location.module} has no export ${location.export}`);
  return adapter;
}

/**
 * A tool use in the model's words, as the first built-in adapter that knows
 * the tool describes it; `other`, with its whole input and its first short
 * string argument as its subject, when none does. A `.sd` row does not name
 * its runtime's tools any other way, and the site learns what a tool is only
 * through here.
 */
export function describeToolUse(name: string, input: unknown): ToolDescription {
  for (const adapter of BUILT_IN_ADAPTERS) {
    const description = adapter.describeTool(name, input);
    if (description && (description.kind !== 'other' || description.prompt !== undefined || description.subject !== undefined)) return description;
  }
  const subject = firstShortArgument(input);
  return { kind: 'other', ...(subject !== undefined ? { subject } : {}), ...(input !== undefined ? { rest: input } : {}) };
}

/**
 * A title or a prompt without the markup of any runtime this build knows
 * (each adapter's `titleText`); undefined when a runtime says nothing is
 * left that could title a conversation. Titles reach the model and the site
 * only through here, so that no runtime's tags are shown as a title.
 */
export function runtimeTitleText(text: string): string | undefined {
  let left: string | undefined = text;
  for (const adapter of BUILT_IN_ADAPTERS) left = left === undefined ? undefined : adapter.titleText(left);
  return left;
}

/** The slash command with its arguments that a command record's text holds, as the first built-in adapter that knows it reads it. */
export function slashCommandOf(text: string): string | undefined {
  for (const adapter of BUILT_IN_ADAPTERS) {
    const command = adapter.slashCommand(text);
    if (command !== undefined) return command;
  }
  return undefined;
}
