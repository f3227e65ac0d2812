// The kept renderer's children: the renderer children (render.mjs) and the
// highlighting process that answers them (highlight.mjs,
// highlight-service.ts). Each is started with the renderer's entry point,
// loads it, and is then given its work as its first message over its IPC
// channel: a renderer child the site input it renders and the folder it
// renders into, the highlighting process the highlight cache and the
// grammars' translated expressions. The site step starts its children so and
// gives them their work at once; an export starts a renderer child and a
// highlighting process as it begins (WaitingRenderer), which load the
// renderer while the export collects and parses, and are given the work of
// the site step's first child and of its highlighting when the site is due.

import { fileURLToPath } from 'node:url';
import { siteChildEnvironment, startChild, type Child } from './child.ts';
import { keptRenderer, siteBuildRoots, siteCode } from './kept-renderer.ts';
import type { SiteInput } from './site-input.ts';

export const RENDER = fileURLToPath(new URL('./render.mjs', import.meta.url));
export const HIGHLIGHT = fileURLToPath(new URL('./highlight.mjs', import.meta.url));

/** The one message a renderer child is sent: what render.mjs renders. */
export interface RendererWork {
  readonly input: SiteInput;
  /** The folder the pages are written into. */
  readonly output: string;
}

/** The one message the highlighting process is sent first: the highlight cache, and the grammars' expressions translated when the renderer was made (grammars.ts). */
export interface HighlightingWork {
  readonly cache: string;
  readonly expressions: string;
}

/** Starts a renderer child of the kept renderer `entry`, in the folder `cwd`: it loads the renderer and waits for its work (giveWork). */
export function startRenderer(entry: string, cwd: string): Child {
  return startChild(RENDER, [entry], cwd, siteChildEnvironment());
}

/** Starts the highlighting process of the kept renderer `entry`, in the folder `cwd`: it loads the renderer and waits for its work (giveWork). */
export function startHighlighting(entry: string, cwd: string): Child {
  return startChild(HIGHLIGHT, [entry], cwd, siteChildEnvironment());
}

/** Gives a child (startRenderer, startHighlighting) its work; returns the child, whose `done` is the end of that work. */
export function giveWork(child: Child, work: RendererWork | HighlightingWork): Child {
  child.send(work);
  return child;
}

/** A renderer child and a highlighting process started together, before their work. */
export interface StartedChildren {
  readonly renderer: Child;
  readonly highlighting: Child;
}

/**
 * A renderer child and a highlighting process started as an export begins,
 * when a renderer is kept for the current code: starting them and loading
 * the renderer is most of the site step of an export after one conversation
 * changed, and started first it happens beside the collect and parse steps.
 * They do nothing else as they wait: they read neither the storage zone nor
 * the bundle, and render and highlight nothing ahead
 * (bench/results/measurements-behind-choices.md).
 *
 * The site step takes them for its first child and its highlighting (take)
 * when it renders with the renderer they loaded; otherwise, and whenever the
 * export ends without rendering, they are stopped (dismiss).
 */
export class WaitingRenderer {
  /** Whether the site step took the child: then it is that step's to wait for. */
  private taken = false;
  /** The child's end, once it was stopped unused. */
  private stopped: Promise<void> | undefined;

  private constructor(
    /** The entry point of the kept renderer the child loaded. */
    readonly entry: string,
    private readonly children: StartedChildren,
  ) {
    // A child stopped unused ends stopped, which is no failure; the end of one
    // taken is awaited by the site step that gave it work.
    for (const child of [children.renderer, children.highlighting]) child.done.catch(() => undefined);
  }

  /**
   * Starts the child, when a renderer is kept for the current code under
   * `roots`; undefined when none is (the site step makes one), or when the
   * child cannot be started: the site step then starts its own, and meets the
   * problem there if it is one.
   */
  static start(roots?: string): WaitingRenderer | undefined {
    try {
      const folder = roots ?? siteBuildRoots();
      const entry = keptRenderer(siteCode(), folder);
      return entry === undefined ? undefined : new WaitingRenderer(entry, { renderer: startRenderer(entry, folder), highlighting: startHighlighting(entry, folder) });
    } catch {
      return undefined;
    }
  }

  /** The renderer child's process id. */
  get pid(): number {
    return this.children.renderer.pid;
  }

  /**
   * The children, for the site step to give work to, when they loaded the
   * kept renderer `entry` and were neither taken nor stopped; else
   * undefined. A renderer made again after a failure is not the one they
   * loaded, even at the same place, so they are taken once only.
   */
  take(entry: string): StartedChildren | undefined {
    if (this.taken || this.stopped !== undefined || entry !== this.entry) return undefined;
    this.taken = true;
    return this.children;
  }

  /** Stops the children unless they were taken; resolves once they have ended, however often it is called. */
  dismiss(): Promise<void> {
    if (this.taken) return Promise.resolve();
    if (this.stopped === undefined) {
      const { renderer, highlighting } = this.children;
      renderer.stop();
      highlighting.stop();
      this.stopped = Promise.allSettled([renderer.done, highlighting.done]).then(() => undefined);
    }
    return this.stopped;
  }
}
