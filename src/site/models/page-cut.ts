// How a subject's talks (a conversation's active branch, a branch, a child
// stream) are cut into pages: from the bytes of each talk's HTML as it was
// rendered, never from an estimate. A page takes talks in order and closes
// when the next talk would pass what the page has room for; a talk larger
// than that is a page alone, as a talk is never cut across pages.

/** A talk as the cut weighs it: its HTML, and the compaction that opens its epoch, which a page shows before it when it is the page's first talk. */
export interface TalkSize {
  /** Its HTML on a page, the branches that leave from it included. */
  readonly bytes: number;
  /** The HTML of its epoch's opening (a compaction's divider and summary, or the start of the conversation); 0 when the epoch has none. */
  readonly epochBytes: number;
  /** Whether it is the first talk of its epoch, so that its epoch's opening comes before it on any page. */
  readonly opensEpoch: boolean;
}

/**
 * How many talks each page holds, in order: a page closes when the next
 * talk would take it past `room(page)` bytes (its number from 0), and a
 * talk that passes it alone has a page of its own. One page of no talk when
 * there are none.
 */
export function cutTalks(talks: readonly TalkSize[], room: (page: number) => number): number[] {
  const counts: number[] = [];
  let count = 0;
  let used = 0;
  for (const talk of talks) {
    const onPage = (first: boolean): number => talk.bytes + (talk.opensEpoch || first ? talk.epochBytes : 0);
    if (count > 0 && used + onPage(false) > room(counts.length)) {
      counts.push(count);
      count = 0;
      used = 0;
    }
    used += onPage(count === 0);
    count += 1;
  }
  counts.push(count);
  return counts;
}
