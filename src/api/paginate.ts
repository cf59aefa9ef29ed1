/**
 * Reading whole List endpoints (DESIGN.md §4, STYLE.md §8), independent of HTTP: the client
 * hands in a `FetchPage` function and gets back either a stream of items or a checked result.
 *
 * Strategy `skip` (the default): read the first page, learn `totalCount` and the page length
 * the server really serves, then fetch every remaining page at once (bounded) with `skip`
 * under the same `order_by`, each page overlapping the one before by an item so that offsets
 * that moved under the read are noticed. Strategy `cursor`: follow `nextPageToken` one page
 * at a time.
 *
 * Either way items are de-duplicated by uid and the count is checked against `totalCount`. An
 * expired page token makes the server restart the listing without an error (spec, Limits): a
 * cursor read then sees uids it already has. Any such sign — a repeated uid, a count that does
 * not match, a `totalCount` that changed between pages — makes the read inconsistent; the
 * listing is read again (bounded) and, if it never settles, reported as inconsistent so the
 * planner refuses deletes and creates of that kind.
 *
 * What the server says is untrusted: a listing is bounded in items, pages and wall-clock time
 * (ListBounds), and a server that claims or serves more is a ListingBoundError naming the
 * listing — never a slot per claimed offset, an endless cursor, or a crash.
 */
import pLimit, { type LimitFunction } from 'p-limit';
import { UserError } from '../model/errors.js';
import {
  boundedFetch,
  DEFAULT_LIST_BOUNDS,
  type ListBounds,
  ListingBoundError,
  type ReadBytes,
  ReadLedger,
  type ReadLimits,
} from './listing-ledger.js';

export { DEFAULT_LIST_BOUNDS, type ListBounds, ListingBoundError, type ReadBytes } from './listing-ledger.js';

export const DEFAULT_PAGE_SIZE = 200;
/** A total order every kind supports, so that `skip` offsets mean the same thing on every page. */
const DEFAULT_ORDER_BY = 'uid';
/**
 * Pages one listing fetches at once after its first, when the caller names no number (the
 * client names its pool size): a big kind is read in one more round trip, not several.
 */
const DEFAULT_LIST_CONCURRENCY = 32;
/** Reads of one listing before it is declared inconsistent. */
const DEFAULT_MAX_READS = 3;
/** Pages in a row that bring nothing new while the server says more remain, before a read gives up on it. */
const MAX_EMPTY_PAGES = 3;

/** One page request; exactly one of `skip` / `pageToken` is set after the first page. */
export interface PageRequest {
  pageSize: number;
  orderBy: string;
  skip?: number;
  pageToken?: string;
}

/** One page as the envelope says: items, the cursor, and `totalCount` parsed to a number. */
export interface Page<T> {
  items: T[];
  nextPageToken?: string;
  totalCount?: number;
  /** The length of the response body it came from (ListBounds.maxBytes), when the fetcher knows it. */
  bytes?: number;
}

export type FetchPage<T> = (request: PageRequest) => Promise<Page<T>>;

export type ListStrategy = 'skip' | 'cursor';

export interface PaginateOptions {
  /** Requested page size (default 200). The server may serve fewer; that is handled. */
  pageSize?: number;
  /** Pages fetched at once after the first (skip strategy). */
  concurrency?: number;
  orderBy?: string;
  strategy?: ListStrategy;
  /** Whole reads before giving up on consistency (checked result only). */
  maxReads?: number;
  /** Bounds of one listing (defaults: DEFAULT_LIST_BOUNDS). */
  bounds?: Partial<ListBounds>;
  /** The response bytes kept, shared with the other listings of one read (default: this listing's own). */
  readBytes?: ReadBytes;
  /** The listing, for errors: `list identities under <uid>`. */
  what?: string;
  /**
   * How many items the caller expects the listing to hold (the manifests' count of a kind): a
   * hint, never trusted. With the skip strategy the pages that count needs are requested beside
   * the first page instead of after it, one round trip less for a big listing. Each such page is
   * used only where the first page shows it to be exactly the request the read would have made
   * (full pages, the same offset and length); any other is set aside unread, and the read goes
   * on as without the hint.
   */
  expectedCount?: number;
}

/** The outcome of `readListing`: items plus whether they are a consistent snapshot. */
export interface CheckedListing<T> {
  items: T[];
  consistent: boolean;
  problem?: string;
  /** Whole reads made (1 when the first read was consistent). */
  reads: number;
  /** Pages fetched over all reads. */
  pages: number;
}

/** A streamed listing (`paginate`) turned out inconsistent after items were already yielded. */
export class InconsistentListingError extends UserError {
  constructor(what: string, problem: string) {
    super('LIST_INCONSISTENT', `${what}: the listing did not read back consistently: ${problem}`);
  }
}

interface ResolvedOptions extends ReadLimits {
  pageSize: number;
  concurrency: number;
  orderBy: string;
  strategy: ListStrategy;
  maxReads: number;
  expectedCount: number | undefined;
}

function resolveOptions(options: PaginateOptions): ResolvedOptions {
  const bounds = { ...DEFAULT_LIST_BOUNDS, ...options.bounds };
  return {
    pageSize: options.pageSize ?? DEFAULT_PAGE_SIZE,
    concurrency: Math.max(1, options.concurrency ?? DEFAULT_LIST_CONCURRENCY),
    orderBy: options.orderBy ?? DEFAULT_ORDER_BY,
    strategy: options.strategy ?? 'skip',
    maxReads: Math.max(1, options.maxReads ?? DEFAULT_MAX_READS),
    bounds,
    what: options.what ?? 'a listing',
    expectedCount: options.expectedCount,
    deadline: performance.now() + bounds.budgetMs,
    readBytes: options.readBytes ?? { kept: 0 },
  };
}

/**
 * One read of a listing: yields batches of new items in listing order, returns the problem
 * that makes it inconsistent (undefined when it is consistent).
 */
async function* readPagesOnce<T extends { uid: string }>(
  unboundedFetch: FetchPage<T>,
  opts: ResolvedOptions,
  ledger: ReadLedger<T>,
): AsyncGenerator<T[], string | undefined> {
  const fetchPage = boundedFetch(unboundedFetch, opts, ledger);
  const limit = pLimit(opts.concurrency);
  try {
    // The pages an expected count needs, asked for beside the first (see PaginateOptions).
    const early =
      opts.strategy === 'skip' ? requestExpectedSlots(fetchPage, opts, limit) : new Map<number, EarlySlot<T>>();
    const first = await fetchPage({ pageSize: opts.pageSize, orderBy: opts.orderBy });
    yield ledger.accept(first);
    const total = first.totalCount;
    const served = first.items.length;
    if (total !== undefined && served >= total) {
      // A token on the page that holds the whole count says the count is short (spec: a last page has none).
      if (first.nextPageToken !== undefined)
        ledger.noteOverrun(`page 1 held the ${total} items totalCount says, yet gave a token for a next page`);
      return ledger.findProblem();
    }

    if (opts.strategy === 'skip' && total !== undefined && served > 0) {
      // Early slots assumed full pages: with shorter ones, their offsets are not this read's.
      yield* readRemainingBySkip(
        fetchPage,
        opts,
        ledger,
        first,
        total,
        limit,
        served === opts.pageSize ? early : new Map(),
      );
      return ledger.findProblem();
    }
    // Cursor: also the fallback when the server gives no totalCount to plan skips with.
    let token = first.nextPageToken;
    let emptyPages = 0;
    while (token) {
      const page = await fetchPage({ pageSize: opts.pageSize, orderBy: opts.orderBy, pageToken: token });
      const fresh = ledger.accept(page);
      // A repeated uid means the token expired and the server started over: stop at once,
      // or a listing longer than the token lifetime would loop forever.
      if (ledger.firstRepeat !== undefined) {
        return `page ${ledger.pages} repeated uid ${ledger.firstRepeat}: the page token expired and the listing restarted`;
      }
      yield fresh;
      emptyPages = page.items.length === 0 ? emptyPages + 1 : 0;
      if (emptyPages >= MAX_EMPTY_PAGES)
        return `the server returned ${emptyPages} empty pages in a row with a page token`;
      token = page.nextPageToken;
    }
    return ledger.findProblem();
  } finally {
    // Slots not started yet are not wanted any more (the consumer stopped, or a page failed).
    limit.clearQueue();
  }
}

/** What one skip slot read: its pages, and the uid it found just before its first offset. */
interface SlotRead<T> {
  pages: Page<T>[];
  /** Uid at `offset - 1` when the slot was read (the overlap), or undefined if none came back. */
  overlapUid: string | undefined;
  /** Uid of the last item the slot kept. */
  lastUid: string | undefined;
  /** A top-up that did not continue where the slot stopped (noted in the ledger when the slot is taken). */
  shift?: { offset: number; expected: string | undefined; found: string | undefined };
  /**
   * What the slot's pages said lies past it: items beyond what it wanted, or a token on its last
   * page. The next slot's business, except after the last slot: then it is past the totalCount.
   */
  beyond?: string;
}

/**
 * Fetches offsets [served, total) concurrently (bounded), every request starting one item
 * early. That overlap item must be the one the previous page ended with: if it is not, items
 * were deleted or inserted before this offset between the two requests, and the offsets moved.
 * A shift is not always visible otherwise — a delete before the offset plus an insert after it
 * keeps `totalCount` and the item count right while one item slides into a page already read
 * and is never seen. Each request yields `served - 1` new items (the page length the server
 * really serves, which may be below the requested page size); a short page is topped up from
 * where it stopped, with the same overlap check.
 */
async function* readRemainingBySkip<T extends { uid: string }>(
  fetchPage: FetchPage<T>,
  opts: ResolvedOptions,
  ledger: ReadLedger<T>,
  firstPage: Page<T>,
  total: number,
  limit: LimitFunction,
  early: ReadonlyMap<number, EarlySlot<T>>,
): AsyncGenerator<T[], void> {
  const served = firstPage.items.length;
  // With one item per page an overlap leaves nothing new: read without it (no shift check).
  const overlap = served > 1 ? 1 : 0;
  // One slot per page the claimed total needs, so that claim is bounded before any slot exists.
  const layout = slotLayout(served, total);
  if (layout.pages > opts.bounds.maxPages) {
    throw new ListingBoundError(
      opts.what,
      `at ${served} items a page, the totalCount of ${total} the server claims takes ${layout.pages.toLocaleString('en-US')} pages, more than the ${opts.bounds.maxPages.toLocaleString('en-US')} a listing may take`,
    );
  }
  const slots: { offset: number; want: number; read: Promise<SlotRead<T>> }[] = [];
  for (const { offset, want } of layout.slots()) {
    const requested = early.get(offset);
    // An early slot is this read's only if it asked for just what this slot asks for.
    const read =
      requested !== undefined && requested.want === want && overlap === 1
        ? requested.read
        : limit(() => fetchSlot(fetchPage, opts, overlap, offset, want));
    // Awaited in order below; this keeps a failure of a later slot from being "unhandled"
    // while an earlier one is still awaited, or after the consumer stopped early.
    read.catch(() => undefined);
    slots.push({ offset, want, read });
  }
  let previousUid: string | undefined = firstPage.items[served - 1]?.uid;
  for (const { offset, want, read } of slots) {
    const slot = await read;
    if (overlap === 1 && slot.overlapUid !== previousUid) ledger.noteShift(offset, previousUid, slot.overlapUid);
    if (slot.shift) ledger.noteShift(slot.shift.offset, slot.shift.expected, slot.shift.found);
    if (slot.beyond !== undefined && offset + want >= total)
      ledger.noteOverrun(`the server says more items follow the totalCount of ${total}: ${slot.beyond}`);
    for (const page of slot.pages) yield ledger.accept(page);
    previousUid = slot.lastUid;
  }
}

/**
 * The slots that read offsets [served, total) after a first page of `served` items: each asks
 * for `served - 1` new items (one page, its first item the overlap), the last for what is left.
 * `pages` counts the first page too.
 */
function slotLayout(
  served: number,
  total: number,
): { pages: number; slots(): Generator<{ offset: number; want: number }> } {
  const stride = served > 1 ? served - 1 : served;
  return {
    pages: 1 + Math.ceil((total - served) / stride),
    *slots() {
      for (let offset = served; offset < total; offset += stride)
        yield { offset, want: Math.min(stride, total - offset) };
    },
  };
}

/** A slot requested before the first page came back, on the strength of an expected count. */
interface EarlySlot<T> {
  want: number;
  read: Promise<SlotRead<T>>;
}

/**
 * The slots readRemainingBySkip will ask for if the listing holds `expectedCount` items in full
 * pages of `pageSize`, requested now. Bounded like any read: no more pages than a listing may
 * take, and none for a count that fits the first page.
 */
function requestExpectedSlots<T extends { uid: string }>(
  fetchPage: FetchPage<T>,
  opts: ResolvedOptions,
  limit: LimitFunction,
): Map<number, EarlySlot<T>> {
  const early = new Map<number, EarlySlot<T>>();
  const expected = opts.expectedCount;
  if (expected === undefined || !Number.isSafeInteger(expected) || opts.pageSize < 2 || expected <= opts.pageSize)
    return early;
  const layout = slotLayout(opts.pageSize, expected);
  if (layout.pages > opts.bounds.maxPages) return early;
  for (const { offset, want } of layout.slots()) {
    const read = limit(() => fetchSlot(fetchPage, opts, 1, offset, want));
    read.catch(() => undefined); // a slot the read does not take is never awaited
    early.set(offset, { want, read });
  }
  return early;
}

/**
 * Reads one slot: `want` new items from `offset` on, each request starting `overlap` items
 * early. A short page is topped up from where it stopped.
 */
async function fetchSlot<T extends { uid: string }>(
  fetchPage: FetchPage<T>,
  opts: ResolvedOptions,
  overlap: 0 | 1,
  offset: number,
  want: number,
): Promise<SlotRead<T>> {
  const slot: SlotRead<T> = { pages: [], overlapUid: undefined, lastUid: undefined };
  let got = 0;
  let stalled = 0;
  while (got < want) {
    const skip = offset + got - overlap;
    const page = await fetchPage({ pageSize: opts.pageSize, orderBy: opts.orderBy, skip });
    let fresh = page.items;
    if (overlap === 1) {
      const head = page.items[0]?.uid;
      // The slot's first overlap is checked against the slot before it, once both are read;
      // a top-up's overlap must be where this slot stopped.
      const anchor = got === 0 ? slot.overlapUid : slot.lastUid;
      if (slot.pages.length === 0) slot.overlapUid = head;
      else if (head !== anchor) slot.shift ??= { offset: offset + got, expected: anchor, found: head };
      fresh = page.items.slice(1);
    }
    // Never take more than the slot covers: the surplus belongs to the next slot (or, after the
    // last slot, lies past the totalCount: readRemainingBySkip then reports it, never drops it).
    const room = want - got;
    const items = fresh.length > room ? fresh.slice(0, room) : fresh;
    if (fresh.length > room) slot.beyond ??= `the page at skip ${skip} held ${fresh.length - room} more`;
    slot.pages.push({ ...page, items });
    got += items.length;
    if (items.length > 0) {
      slot.lastUid = items[items.length - 1]!.uid;
      stalled = 0;
      if (got >= want && page.nextPageToken !== undefined)
        slot.beyond ??= `the page at skip ${skip} gave a token for a next page`;
      continue;
    }
    // Nothing new: the listing ends here (it shrank; the count check reports it), or the
    // server served a short page that held only the overlap item, which is worth a retry.
    if (page.items.length === 0 || page.nextPageToken === undefined || ++stalled >= MAX_EMPTY_PAGES) break;
  }
  return slot;
}

/**
 * Reads a whole listing and checks it, re-reading (up to `maxReads` times) while it is
 * inconsistent. Never throws for inconsistency: the result says so.
 */
export async function readListing<T extends { uid: string }>(
  fetchPage: FetchPage<T>,
  options: PaginateOptions = {},
): Promise<CheckedListing<T>> {
  const opts = resolveOptions(options);
  let pages = 0;
  let items: T[] = [];
  let problem: string | undefined;
  for (let read = 1; read <= opts.maxReads; read++) {
    const ledger = new ReadLedger<T>();
    const batches = readPagesOnce(fetchPage, opts, ledger);
    items = [];
    let step = await batches.next();
    while (!step.done) {
      // One by one: a spread of a 100,000-item page into push() overflows the call stack.
      for (const item of step.value) items.push(item);
      step = await batches.next();
    }
    problem = step.value;
    pages += ledger.pages;
    if (problem === undefined) return { items, consistent: true, reads: read, pages };
    // The items of this read are dropped for the next one's: so are their bytes.
    if (read < opts.maxReads) opts.readBytes.kept -= ledger.bytes;
  }
  return {
    items,
    consistent: false,
    problem: `${problem} (read ${opts.maxReads} time${opts.maxReads === 1 ? '' : 's'})`,
    reads: opts.maxReads,
    pages,
  };
}

/**
 * Streams the items of a listing, de-duplicated, in listing order. Items already yielded
 * cannot be taken back, so an inconsistent read is not retried: it ends the stream with an
 * InconsistentListingError. Use `readListing` when a checked snapshot is needed.
 */
export async function* paginateItems<T extends { uid: string }>(
  fetchPage: FetchPage<T>,
  what: string,
  options: PaginateOptions = {},
): AsyncGenerator<T, void> {
  const opts = resolveOptions({ what, ...options });
  const batches = readPagesOnce(fetchPage, opts, new ReadLedger<T>());
  let step = await batches.next();
  while (!step.done) {
    yield* step.value;
    step = await batches.next();
  }
  if (step.value !== undefined) throw new InconsistentListingError(what, step.value);
}
