/**
 * What one read of a listing has seen (uids, repeats, every `totalCount`, shifted offsets) and
 * the bounds it holds the server to (DESIGN.md §4): items, pages, wall-clock time and the bytes
 * of response bodies kept. A server that claims or serves more is a ListingBoundError naming the
 * listing (see paginate.ts).
 */
import { UserError } from '../model/errors.js';
import type { FetchPage, Page } from './paginate.js';

/** How much one listing may hold and take (DESIGN.md §4); exceeding one is an error. */
export interface ListBounds {
  /** Items in one read of a listing, and the largest `totalCount` believed (default 1,000,000). */
  maxItems: number;
  /** Pages in one read of a listing (default 10,000). */
  maxPages: number;
  /** Wall-clock time for a whole listing, re-reads included (default 10 minutes). */
  budgetMs: number;
  /**
   * Bytes of response bodies one read keeps (default 512 MiB), counted as the bodies' length in
   * characters (their size in bytes, for the ASCII JSON the API sends): a listing's own, or all
   * the listings that share one ReadBytes (every listing of an org's live read). The other bounds
   * limit items and pages, not their size: pages of huge items would fill the heap inside them.
   */
  maxBytes: number;
}

/**
 * The whole live read of a 100,000-resource org (bench/big-org.ts at scale 10) is ≈57 MB of
 * response bodies; this is nine times that, and well inside Node's heap.
 */
const DEFAULT_MAX_READ_BYTES = 512 * 1024 * 1024;

export const DEFAULT_LIST_BOUNDS: Readonly<ListBounds> = {
  maxItems: 1_000_000,
  maxPages: 10_000,
  budgetMs: 10 * 60_000,
  maxBytes: DEFAULT_MAX_READ_BYTES,
};

/**
 * The bytes of response bodies the listings of one read keep (ListBounds.maxBytes), shared by
 * them: a read of an org makes one for all its listings; a listing without one counts its own.
 */
export interface ReadBytes {
  kept: number;
}

/** A listing went past one of its bounds: the server claims or serves more than is believable. */
export class ListingBoundError extends UserError {
  constructor(what: string, problem: string) {
    super(
      'LIST_BOUND_EXCEEDED',
      `${what}: ${problem}; the listing was abandoned (the bounds are the client options listBounds)`,
    );
  }
}

/** The bounds one read checks, and what names the listing in an error. */
export interface ReadLimits {
  bounds: ListBounds;
  what: string;
  /** `performance.now()` after which no page is requested any more. */
  deadline: number;
  /** What this listing and those it shares a read with keep (bounded by `bounds.maxBytes`). */
  readBytes: ReadBytes;
}

/** The page fetcher of one read, with every bound checked before and after each page. */
export function boundedFetch<T extends { uid: string }>(
  fetchPage: FetchPage<T>,
  opts: ReadLimits,
  ledger: ReadLedger<T>,
): FetchPage<T> {
  const { bounds, what } = opts;
  return async (request) => {
    if (performance.now() > opts.deadline) {
      throw new ListingBoundError(
        what,
        `it took longer than ${formatSeconds(bounds.budgetMs)} (${ledger.pages} pages, ${ledger.seen.size} items read)`,
      );
    }
    if (ledger.pages >= bounds.maxPages)
      throw new ListingBoundError(what, `it went on past ${bounds.maxPages.toLocaleString('en-US')} pages`);
    // Another listing of the read may have gone past the bound: no more pages for this one either.
    if (opts.readBytes.kept > bounds.maxBytes) throw tooManyBytes(opts);
    const page = await fetchPage(request);
    if (page.bytes !== undefined) {
      ledger.bytes += page.bytes;
      opts.readBytes.kept += page.bytes;
      if (opts.readBytes.kept > bounds.maxBytes) throw tooManyBytes(opts);
    }
    if (page.totalCount !== undefined && page.totalCount > bounds.maxItems) {
      throw new ListingBoundError(
        what,
        `the server says totalCount ${page.totalCount}, more than the ${bounds.maxItems.toLocaleString('en-US')} items a listing may hold`,
      );
    }
    if (
      ledger.seen.size + page.items.length > bounds.maxItems &&
      ledger.seen.size + countNew(page.items, ledger.seen) > bounds.maxItems
    ) {
      throw new ListingBoundError(what, `the server served more than ${bounds.maxItems.toLocaleString('en-US')} items`);
    }
    return page;
  };
}

function tooManyBytes({ bounds, what, readBytes }: ReadLimits): ListingBoundError {
  return new ListingBoundError(
    what,
    `the read kept ${readBytes.kept.toLocaleString('en-US')} bytes of response bodies, more than the ${formatBytes(bounds.maxBytes)} (listBounds.maxBytes) one read may keep`,
  );
}

function formatBytes(n: number): string {
  const mib = 1024 * 1024;
  return n % mib === 0 ? `${n / mib} MiB` : `${n.toLocaleString('en-US')} bytes`;
}

function countNew(items: readonly { uid: string }[], seen: ReadonlySet<string>): number {
  let n = 0;
  for (const item of items) if (!seen.has(item.uid)) n++;
  return n;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Tracks uids seen in one read, the first repeat, and every `totalCount` reported. */
export class ReadLedger<T extends { uid: string }> {
  readonly seen = new Set<string>();
  firstRepeat: string | undefined;
  readonly totals = new Set<number>();
  /** The first page that carried no `totalCount` (the spec gives one on every list answer), by number. */
  pageWithoutTotal: number | undefined;
  /** The first place where a skip page did not continue where the page before it ended. */
  shift: string | undefined;
  /** The first sign that the listing holds more than its `totalCount` says (items or a token past it). */
  overrun: string | undefined;
  pages = 0;
  /** Bytes of the response bodies this read took (its share of ReadBytes). */
  bytes = 0;

  noteShift(offset: number, expected: string | undefined, found: string | undefined): void {
    this.shift ??=
      `the items before offset ${offset} changed while the listing was read ` +
      `(expected ${expected ?? 'an item'} there, found ${found ?? 'none'}), so a page may have been skipped`;
  }

  /**
   * The server says more items remain past its own `totalCount`: the count is stale or false,
   * and what lies past it is never trimmed away as if it were not there.
   */
  noteOverrun(problem: string): void {
    this.overrun ??= problem;
  }

  /** Records a page and returns its items not seen before, in order. */
  accept(page: Page<T>): T[] {
    this.pages++;
    if (page.totalCount !== undefined) this.totals.add(page.totalCount);
    else this.pageWithoutTotal ??= this.pages;
    const fresh: T[] = [];
    const items = page.items;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (this.seen.has(item.uid)) {
        this.firstRepeat ??= item.uid;
        continue;
      }
      this.seen.add(item.uid);
      fresh.push(item);
    }
    return fresh;
  }

  /** Why this read is not a consistent snapshot, or undefined when it is. */
  findProblem(): string | undefined {
    if (this.firstRepeat !== undefined) {
      return `uid ${this.firstRepeat} was returned twice (the listing restarted or shifted while it was read)`;
    }
    if (this.shift !== undefined) return this.shift;
    // Without a count the read cannot be checked: what the server left out would go unseen.
    if (this.pageWithoutTotal !== undefined)
      return `page ${this.pageWithoutTotal} carried no totalCount (every list answer has one), so the read cannot be checked against it`;
    if (this.totals.size > 1) return `totalCount changed while the listing was read (${[...this.totals].join(' → ')})`;
    if (this.overrun !== undefined) return this.overrun;
    const [total] = this.totals;
    if (total !== undefined && this.seen.size !== total)
      return `read ${this.seen.size} items but totalCount is ${total}`;
    return undefined;
  }
}
