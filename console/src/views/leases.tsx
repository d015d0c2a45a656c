/**
 * Leases: the org's leases as a live table. The list is read once (GET /v1/leases), then the
 * org's event stream (GET /v1/events, followed) says which lease changed, and that lease alone is
 * read again (GET /v1/leases/:id, with its `guard`: the next deadline and its reason).
 */
import { memo } from "preact/compat";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, call, follow, type GuardedLease, type Lease } from "../api";
import { rate, usd } from "../format";
import { costSoFar, nextDeadline } from "../lease-facts";
import { ErrorNote, Filter, Head, messageOf, useLoad, useNow } from "../ui";

type Row = Lease & { guard?: GuardedLease["guard"] };

const KINDS = ["deployment", "scratch", "job"] as const;
const STATES = ["pending", "provisioning", "booting", "ready", "stopping", "stopped", "starting", "releasing", "released"] as const;
/**
 * Events older than the list by more than this are already in it: the list's time is its answer's
 * `Date` (whole seconds), and the index it reads may trail a lease's events by a moment. Reading
 * a lease once more than needed costs one request.
 */
const LIST_SLACK_MS = 10_000;
const READ_CONCURRENCY = 4;

export function LeasesView() {
  const [rows, setRows] = useState<Map<string, Row>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const [live, setLive] = useState(false);
  const [kind, setKind] = useState("");
  const [state, setState] = useState("");
  const dirty = useRef(new Set<string>());
  const flushing = useRef(false);

  const upsert = useCallback((lease: Row) => setRows((m) => new Map(m).set(lease.id, lease)), []);

  /** Reads every dirty lease again, a few at a time. */
  const flush = useCallback(async () => {
    if (flushing.current) return;
    flushing.current = true;
    try {
      while (dirty.current.size > 0) {
        const batch = [...dirty.current].slice(0, READ_CONCURRENCY);
        for (const id of batch) dirty.current.delete(id);
        await Promise.all(
          batch.map((id) => call(api.GET("/v1/leases/{id}", { params: { path: { id } } })).then(upsert, (e) => setError(messageOf(e)))),
        );
      }
    } finally {
      flushing.current = false;
    }
  }, [upsert]);

  const touch = useCallback(
    (id: string) => {
      dirty.current.add(id);
      void flush();
    },
    [flush],
  );

  useEffect(() => {
    const stop = new AbortController();
    const start = async (after: number | null) => {
      setLive(false);
      let listedAt: number;
      try {
        const pending = api.GET("/v1/leases", { params: { query: { limit: 200 } } });
        const page = await call(pending);
        // The server's clock, as events' `at` are: the browser's may be off by any amount.
        listedAt = Date.parse((await pending).response.headers.get("date") ?? "") || Date.now();
        setRows(new Map(page.data.map((l) => [l.id, l])));
        for (const l of page.data) if (l.state !== "released") dirty.current.add(l.id);
        void flush();
      } catch (e) {
        setError(messageOf(e));
        return;
      }
      setLive(true);
      await follow(
        `/v1/events${after === null ? "" : `?after=${after}`}`,
        (frame) => {
          const event = JSON.parse(frame.data) as { lease_id: string | null; at: string };
          if (event.lease_id && Date.parse(event.at) > listedAt - LIST_SLACK_MS) touch(event.lease_id);
        },
        stop.signal,
        (failure) => {
          // Events gone for good (docs/events.md): list again and follow from the oldest kept.
          const oldest = failure.details.oldest_kept;
          if (failure.code === "events_gone" && typeof oldest === "number") void start(oldest - 1);
          else setError(messageOf(failure));
        },
      );
    };
    void start(null);
    return () => stop.abort();
  }, [flush, touch]);

  const shown = useMemo(
    () =>
      [...rows.values()]
        .filter((l) => (!kind || l.kind === kind) && (!state || l.state === state))
        .sort((a, b) => (b.created_at ?? "").localeCompare(a.created_at ?? "")),
    [rows, kind, state],
  );

  return (
    <section aria-labelledby="leases-title">
      <h1 id="leases-title">Leases</h1>
      <p class="status" role="status">
        {live ? "Live: updates as the org's events arrive." : "Connecting…"}
      </p>
      <ErrorNote error={error} />
      <NewScratchLease onCreated={(lease) => (upsert(lease), touch(lease.id))} />
      <div class="filters">
        <Filter label="Kind" options={KINDS} value={kind} onChange={setKind} />
        <Filter label="State" options={STATES} value={state} onChange={setState} />
      </div>
      <LeaseTable rows={shown} />
    </section>
  );
}

/**
 * A longer list than this renders only the rows in view (and OVERSCAN_ROWS either side): a
 * thousand rows are some 20,000 elements whose layout alone takes longer than the 200 ms a table
 * may take to appear (docs/console.md). The Leases view's own list (200) stays whole, so the
 * browser's find-in-page sees every row.
 */
const WINDOW_ABOVE_ROWS = 200;
const OVERSCAN_ROWS = 20;
/** A row's height until one is measured: each cell is one line (`table.leases.windowed`). */
const ROW_PX_GUESS = 34;
const COLUMNS = ["Name or id", "Kind", "State", "GPU", "Provider / region", "Rate", "Cost so far", "Next deadline"];

/** The rows of `count` that the page's scroll position shows, and a row's measured height. */
function useRowWindow(count: number, enabled: boolean) {
  const body = useRef<HTMLTableSectionElement>(null);
  const [view, setView] = useState({ top: 0, scroll: 0, height: 1000, row: ROW_PX_GUESS });
  useLayoutEffect(() => {
    if (!enabled) return;
    let frame = 0;
    const measure = () => {
      frame = 0;
      const el = body.current;
      if (!el) return;
      const row = (el.querySelector("tr[aria-rowindex]") as HTMLElement | null)?.offsetHeight || ROW_PX_GUESS;
      const next = { top: el.getBoundingClientRect().top + scrollY, scroll: scrollY, height: innerHeight, row };
      setView((v) => (v.top === next.top && v.scroll === next.scroll && v.height === next.height && v.row === next.row ? v : next));
    };
    const later = () => void (frame ||= requestAnimationFrame(measure));
    measure();
    addEventListener("scroll", later, { passive: true });
    addEventListener("resize", later);
    return () => {
      cancelAnimationFrame(frame);
      removeEventListener("scroll", later);
      removeEventListener("resize", later);
    };
  }, [enabled, count]);
  if (!enabled) return { body, first: 0, last: count, row: view.row };
  const first = Math.max(0, Math.floor((view.scroll - view.top) / view.row) - OVERSCAN_ROWS);
  const last = Math.min(count, Math.max(first, Math.ceil((view.scroll + view.height - view.top) / view.row) + OVERSCAN_ROWS));
  return { body, first, last, row: view.row };
}

/**
 * The leases as a table. A long one is windowed: the rows out of view are one spacer row above
 * and one below, hidden from assistive technology, while `aria-rowcount` and each row's
 * `aria-rowindex` still say where a row is; Tab from the last rendered row scrolls it into view,
 * which renders the rows after it.
 */
export function LeaseTable({ rows }: { rows: Row[] }) {
  const windowed = rows.length > WINDOW_ABOVE_ROWS;
  const { body, first, last, row } = useRowWindow(rows.length, windowed);
  return (
    <table class={windowed ? "leases windowed" : "leases"} aria-rowcount={rows.length + 1}>
      <caption>{rows.length === 1 ? "1 lease" : `${rows.length} leases`}</caption>
      <Head columns={COLUMNS} />
      <tbody ref={body}>
        <Spacer rows={first} row={row} />
        {rows.slice(first, last).map((l, i) => (
          <LeaseRow key={l.id} lease={l} index={first + i} />
        ))}
        <Spacer rows={rows.length - last} row={row} />
      </tbody>
    </table>
  );
}

function Spacer({ rows, row }: { rows: number; row: number }) {
  return rows > 0 ? (
    <tr class="spacer" aria-hidden="true">
      <td colSpan={COLUMNS.length} style={{ height: `${rows * row}px` }} />
    </tr>
  ) : null;
}

/** One lease's row: rendered again only when its lease changes (the clock ticks in its two cells alone). */
const LeaseRow = memo(function LeaseRow({ lease: l, index }: { lease: Row; index: number }) {
  return (
    <tr data-lease={l.id} aria-rowindex={index + 2}>
      <td>
        <a href={`#/leases/${l.id}`}>{l.name ?? l.id}</a>
      </td>
      <td>{l.kind}</td>
      <td class={`state state-${l.state}`}>
        {l.state}
        {l.release_reason ? ` (${l.release_reason})` : ""}
      </td>
      <td>{l.offer ? `${l.offer.gpu}×${l.offer.gpu_count}` : "—"}</td>
      <td>
        {l.provider}
        {l.offer ? ` / ${l.offer.region}` : ""}
      </td>
      <td>{rate(l.hourly_usd)}</td>
      <td>
        <CostSoFar lease={l} />
      </td>
      <td class="deadline">
        <Deadline lease={l} />
      </td>
    </tr>
  );
});

export function CostSoFar({ lease }: { lease: Lease }) {
  const cost = costSoFar(lease, useNow());
  return <>{`${usd(cost.usd, 4)}${cost.estimate ? " est." : ""}`}</>;
}

export function Deadline({ lease }: { lease: Row }) {
  const now = useNow();
  return <>{lease.state === "released" ? "—" : (nextDeadline(lease.guard, now) ?? "none")}</>;
}

function NewScratchLease({ onCreated }: { onCreated: (lease: Lease) => void }) {
  const gpus = useLoad(() => call(api.GET("/v1/catalog/gpus")));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const field = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    const maxHourly = field("max-hourly");
    setBusy(true);
    setError(null);
    try {
      const lease = await call(
        api.POST("/v1/leases", {
          headers: { "idempotency-key": crypto.randomUUID() },
          body: {
            kind: "scratch",
            ...(field("name") ? { name: field("name") } : {}),
            spec: { gpu: `${field("gpu")}:1`, ...(maxHourly ? { max_hourly_usd: Number(maxHourly) } : {}) },
            policy: { ttl: field("ttl") },
          },
        }),
      );
      form.reset();
      onCreated(lease);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };
  const classes = (gpus.value?.data ?? []).filter((g) => g.offers > 0);
  return (
    <details class="new-lease">
      <summary>New scratch lease</summary>
      <form onSubmit={submit} aria-label="New scratch lease">
        <label>
          GPU class{" "}
          <select name="gpu" required>
            {classes.map((g) => (
              <option key={g.name} value={g.name}>
                {g.name} ({g.vram_gb} GB, from {rate(g.cheapest_hourly_usd)})
              </option>
            ))}
          </select>
        </label>
        <label>
          Name (optional) <input name="name" maxLength={63} />
        </label>
        <label>
          Time to live <input name="ttl" defaultValue="1h" required pattern="[1-9][0-9]{0,6}[smhd]" title="a duration: 90s, 15m, 2h, 1d" />
        </label>
        <label>
          Max $/h (optional) <input name="max-hourly" type="number" min="0" step="0.01" />
        </label>
        <button type="submit" disabled={busy || classes.length === 0}>
          Create scratch lease
        </button>
      </form>
      <ErrorNote error={error ?? gpus.error} />
    </details>
  );
}
