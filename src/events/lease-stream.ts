/**
 * A lease's events going out of its object (docs/events.md): pages, the open Server-Sent Events
 * streams its object pushes to as it writes (src/events/sse.ts), and the forward to the org's event
 * log. The object calls `appended` on its one write path, and `forward` and, once the lease is
 * released, `released` from its `#finish`, which retries a failed forward on the alarm like an
 * index write; the org's log drops what it already holds.
 */
import type { Env } from "../env";
import type { LeaseRecord } from "../lease/state";
import type { LeaseEvent, LeaseStore } from "../lease/store";
import { forwardLeaseEvents } from "./forward";
import type { OrgLeaseRow } from "../orgs/lease-index";
import { leaseEndFrame, leaseEventFrame, MAX_EVENT_PAGE, type LeaseEventPage } from "./lease-events";
import { Followers } from "./sse";

/** How many events one forward to the org's log carries. */
const FORWARD_BATCH = 100;

/** A lease's row of its org's index, to write through with its events (src/orgs/lease-index.ts). */
export interface IndexRowOut {
  row: OrgLeaseRow;
  /** Whether the indexed deadline moves (src/lease/decide.ts `indexWrite`). */
  deadline: boolean;
}

export class LeaseEventsOut {
  readonly #followers: Followers<LeaseEvent>;
  #forwarding: Promise<void> | null = null;
  /** The index row waiting to go with the next call, and its ticket: rows are numbered as handed in. */
  #row: { out: IndexRowOut; ticket: number } | null = null;
  #tickets = 0;
  /** The ticket of the newest row the org's object has taken. */
  #landed = 0;

  constructor(
    private readonly store: LeaseStore,
    private readonly env: Env,
    private readonly waitUntil: (p: Promise<unknown>) => void,
  ) {
    this.#followers = new Followers<LeaseEvent>({
      // A follower behind reads a page of events at a time.
      itemsAfter: (seq) => store.eventsAfter(seq, MAX_EVENT_PAGE),
      cursorOf: (e) => e.seq,
      writer: () => leaseEventFrame,
      ended: () => {
        const l = store.load();
        return l?.state === "released" ? leaseEndFrame(l.id) : null;
      },
    });
  }

  /** The events after `after`, at most `limit`. */
  page(l: LeaseRecord, after: number, limit: number): LeaseEventPage<LeaseEvent> {
    const data = this.store.eventsAfter(after, limit + 1);
    const more = data.length > limit;
    if (more) data.pop();
    return { data, next_after: more ? data[data.length - 1]!.seq : null, released: l.state === "released" };
  }

  /** A stream of the events after `after`, then each one as it is written; it ends once the lease is released. */
  follow(after: number): ReadableStream<Uint8Array> {
    return this.#followers.open(after);
  }

  /** After an event is written: pushed to the open streams at once, and to the org's log. */
  appended(l: LeaseRecord): void {
    this.#followers.wake();
    this.waitUntil(this.forward(l.org_id, l.id).catch(() => undefined));
  }

  /** The lease is released: every stream ends (one still reading what it missed, when it has read it). */
  released(): void {
    this.#followers.end();
  }

  /**
   * Sends the org's object every event it has not acknowledged and, when given, the lease's index
   * row, one call at a time: the row goes with the events of the same call. Resolves once the org's
   * object has taken them (`index` included: a call already under way when it came does not count),
   * and throws when a call failed; what failed is sent again by the next forward.
   */
  async forward(orgId: string, leaseId: string, index: IndexRowOut | null = null): Promise<void> {
    let ticket = 0;
    if (index) {
      ticket = ++this.#tickets;
      this.#row = { out: index, ticket };
    }
    for (;;) {
      this.#forwarding ??= this.#forwardPending(orgId, leaseId).finally(() => {
        this.#forwarding = null;
      });
      await this.#forwarding;
      if (this.#landed >= ticket) return;
    }
  }

  async #forwardPending(orgId: string, leaseId: string): Promise<void> {
    for (;;) {
      const row = this.#row;
      const pending = this.store.eventsAfter(this.store.forwardedSeq(), FORWARD_BATCH);
      if (pending.length === 0 && row === null) return;
      await forwardLeaseEvents(this.env, orgId, leaseId, pending, row?.out ?? null);
      if (row) {
        this.#landed = Math.max(this.#landed, row.ticket);
        if (this.#row === row) this.#row = null;
      }
      if (pending.length > 0) this.store.markForwarded(pending.at(-1)!.seq);
    }
  }
}
