/**
 * A lease: what it is and costs, its next deadline, its actions (each behind a confirmation that
 * says what happens and what it costs), its event timeline and log (both followed), its artifacts
 * (read again when an outputs event comes), exec for a scratch lease, and its receipt once settled.
 */
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { parseDuration } from "../../../src/duration-text";
import { api, ApiFailure, call, download, follow, type GuardedLease, type Schemas } from "../api";
import { artifactUrl, bytesText, downloadName, outputsText } from "../artifacts";
import { costOver, rate, time, usd } from "../format";
import { costSoFar } from "../lease-facts";
import { Confirm, ErrorNote, messageOf, useNow } from "../ui";
import { CostSoFar, Deadline } from "./leases";

type LeaseEvent = Schemas["LeaseEvent"];
type Artifact = Schemas["Artifact"];
/** The artifacts table shows this many; the rest are said, and the CLI fetches them all. */
const ARTIFACTS_SHOWN = 200;
type Action = "end" | "stop" | "start" | "extend" | "lock";
const MAX_LOG_CHARS = 200_000;
const EXEC_POLL_MS = 2_000;

export function LeaseView({ id }: { id: string }) {
  const [lease, setLease] = useState<GuardedLease | null>(null);
  const [events, setEvents] = useState<LeaseEvent[]>([]);
  const [error, setError] = useState<string | null>(null);
  const now = useNow();

  const read = useCallback(
    () => call(api.GET("/v1/leases/{id}", { params: { path: { id } } })).then(setLease, (e) => setError(messageOf(e))),
    [id],
  );

  useEffect(() => {
    void read();
    const stop = new AbortController();
    void follow(
      `/v1/leases/${encodeURIComponent(id)}/events`,
      (frame) => {
        if (frame.event === "end") return void read();
        setEvents((list) => [...list, JSON.parse(frame.data) as LeaseEvent]);
        void read();
      },
      stop.signal,
      (failure) => setError(messageOf(failure)),
    );
    return () => stop.abort();
  }, [id, read]);

  if (!lease) {
    return (
      <section aria-labelledby="lease-title">
        <h1 id="lease-title">Lease {id}</h1>
        <ErrorNote error={error} />
        {error ? null : <p role="status">Loading…</p>}
      </section>
    );
  }
  const released = lease.state === "released";
  return (
    <section aria-labelledby="lease-title">
      <p>
        <a href="#/leases">← All leases</a>
      </p>
      <h1 id="lease-title">{lease.name ?? lease.id}</h1>
      <ErrorNote error={error} />
      <dl class="facts">
        <dt>Id</dt>
        <dd>{lease.id}</dd>
        <dt>Kind</dt>
        <dd>{lease.kind}</dd>
        <dt>State</dt>
        <dd class="lease-state">
          {lease.state}
          {lease.release_reason ? ` (${lease.release_reason})` : ""}
        </dd>
        <dt>Machine</dt>
        <dd>
          {lease.offer ? `${lease.offer.gpu}×${lease.offer.gpu_count} on ${lease.provider} / ${lease.offer.region}` : lease.provider}
        </dd>
        <dt>Rate</dt>
        <dd>{rate(lease.hourly_usd)}</dd>
        <dt>Cost so far</dt>
        <dd>
          <CostSoFar lease={lease} />
        </dd>
        <dt>Next deadline</dt>
        <dd class="deadline">
          <Deadline lease={lease} />
        </dd>
        <dt>Time to live ends</dt>
        <dd>{time(lease.ttl_expires_at)}</dd>
      </dl>
      {released ? null : <Actions lease={lease} now={now} onDone={(l) => setLease({ ...lease, ...l })} />}
      {lease.billing.receipt_id ? <Receipt id={lease.billing.receipt_id} /> : null}
      <h2>Events</h2>
      <ol class="timeline" aria-label="Event timeline">
        {events.map((e) => (
          <li key={e.seq}>
            <time dateTime={e.at}>{new Date(e.at).toLocaleTimeString()}</time> <strong>{e.type}</strong>
            {e.from || e.to ? ` ${e.from ?? "—"} → ${e.to ?? "—"}` : ""}
            {e.reason ? ` (${e.reason})` : ""}
            {outputsText(e) ? `: ${outputsText(e)}` : ""}
          </li>
        ))}
      </ol>
      {lease.kind === "deployment" ? null : <Artifacts id={lease.id} version={events.filter((e) => e.type === "outputs_uploaded" || e.type === "outputs_incomplete").length} />}
      <Logs id={lease.id} />
      {lease.kind === "scratch" && lease.state === "ready" ? <Exec id={lease.id} /> : null}
    </section>
  );
}

/** What each action does and costs, said before it is done. */
function consequence(action: Action, lease: GuardedLease, now: number, ms: number | null): ComponentChildren {
  const spent = usd(costSoFar(lease, now).usd, 4);
  const machine = lease.offer ? `${lease.offer.gpu}×${lease.offer.gpu_count} on ${lease.provider}` : `on ${lease.provider}`;
  const more = ms === null ? "—" : usd(costOver(lease.hourly_usd, ms));
  switch (action) {
    case "end":
      return `Destroys the machine (${machine}) and releases the lease for good; billing stops. Spent so far: ${spent}.`;
    case "stop":
      return `Stops the machine, keeping its disk; compute billing stops and the disk bills ${rate(lease.billing.estimate.stopped_hourly_usd)} while stopped${lease.policy.stopped_ttl ? `, released after ${lease.policy.stopped_ttl} stopped` : ""}. Spent so far: ${spent}.`;
    case "start":
      return `Starts the stopped machine: a new session at ${rate(lease.hourly_usd)}, reserved against the org's budget.`;
    case "extend":
      return `Moves the end of the time to live (now ${time(lease.ttl_expires_at)}) later by the duration below: up to ${more} more at ${rate(lease.hourly_usd)}.`;
    case "lock":
      return `Counts the lease as in use for the duration below (never past its hard caps), so idle rules do not stop it: up to ${more} at ${rate(lease.hourly_usd)}.`;
  }
}

const LABELS: Record<Action, string> = { end: "End", stop: "Stop", start: "Start", extend: "Extend", lock: "Lock" };

function Actions({ lease, now, onDone }: { lease: GuardedLease; now: number; onDone: (lease: Schemas["Lease"]) => void }) {
  const [asking, setAsking] = useState<Action | null>(null);
  const [by, setBy] = useState("1h");
  const [error, setError] = useState<string | null>(null);
  const enabled: Record<Action, boolean> = {
    end: true,
    stop: lease.state === "ready",
    start: lease.state === "stopped",
    extend: lease.state !== "releasing",
    lock: lease.state !== "releasing",
  };
  const run = async (action: Action) => {
    setAsking(null);
    setError(null);
    const params = { path: { id: lease.id } };
    try {
      const next =
        action === "extend"
          ? await call(api.POST("/v1/leases/{id}/extend", { params, body: { by } }))
          : action === "lock"
            ? await call(api.POST("/v1/leases/{id}/lock", { params, body: { for: by } }))
            : await call(api.POST(`/v1/leases/{id}/${action}`, { params, body: {} }));
      onDone(next);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  const timed = asking === "extend" || asking === "lock";
  return (
    <div class="actions" role="group" aria-label="Actions">
      {(Object.keys(LABELS) as Action[]).map((a) => (
        <button key={a} type="button" disabled={!enabled[a]} onClick={() => setAsking(a)} class={a === "end" ? "danger" : undefined}>
          {LABELS[a]}
        </button>
      ))}
      <ErrorNote error={error} />
      {asking ? (
        <Confirm title={`${LABELS[asking]} ${lease.name ?? lease.id}?`} confirmLabel={`${LABELS[asking]} lease`} onCancel={() => setAsking(null)} onConfirm={() => void run(asking)}>
          <p class="consequence">{consequence(asking, lease, now, timed ? parseDuration(by) : null)}</p>
          {timed ? (
            <label>
              {asking === "extend" ? "Extend by" : "Lock for"} <input value={by} onInput={(e) => setBy(e.currentTarget.value)} />
            </label>
          ) : null}
        </Confirm>
      ) : null}
    </div>
  );
}

/** The lease's artifacts (`GET /v1/leases/:id/artifacts`), read again whenever `version` changes, each with a download. */
function Artifacts({ id, version }: { id: string; version: number }) {
  const [list, setList] = useState<{ data: Artifact[]; more: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    call(api.GET("/v1/leases/{id}/artifacts", { params: { path: { id }, query: { limit: ARTIFACTS_SHOWN } } })).then(
      (page) => setList({ data: page.data, more: page.next_cursor !== null }),
      (e) => setError(messageOf(e)),
    );
  }, [id, version]);
  const save = (path: string) => download(artifactUrl(id, path), downloadName(path)).catch((e: unknown) => setError(messageOf(e)));
  return (
    <>
      <h2>Artifacts</h2>
      <ErrorNote error={error} />
      {list === null ? null : list.data.length === 0 ? (
        <p>No artifacts.</p>
      ) : (
        <table class="artifacts">
          <caption>
            {list.data.length}
            {list.more ? "+" : ""} {list.data.length === 1 ? "file" : "files"}, {bytesText(list.data.reduce((n, a) => n + a.size, 0))}
            {list.more ? ` shown; the rest with: lessor artifacts ls ${id}` : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col">Path</th>
              <th scope="col">Size</th>
              <th scope="col">Created</th>
              <th scope="col">Download</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((a) => (
              <tr key={a.path}>
                <td class="artifact-path">{a.path}</td>
                <td>{bytesText(a.size)}</td>
                <td>
                  <time dateTime={a.created_at}>{time(a.created_at)}</time>
                </td>
                <td>
                  <button type="button" onClick={() => void save(a.path)} aria-label={`Download ${a.path}`}>
                    Download
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function Logs({ id }: { id: string }) {
  const [text, setText] = useState("");
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => {
    const stop = new AbortController();
    void follow(
      `/v1/leases/${encodeURIComponent(id)}/logs`,
      (frame) => {
        if (frame.event === "end") return setNote(`The log ended (${(JSON.parse(frame.data) as { reason?: string }).reason ?? "closed"}).`);
        if (frame.event === "dropped") return setNote("Some output was dropped before it was read.");
        setText((t) => (t + frame.data + "\n").slice(-MAX_LOG_CHARS));
      },
      stop.signal,
      (failure) => setNote(messageOf(failure)),
    );
    return () => stop.abort();
  }, [id]);
  return (
    <>
      <h2>Logs</h2>
      <pre class="logs" tabIndex={0} aria-label="Logs, following">
        {text || "(no output yet)"}
      </pre>
      {note ? <p role="status">{note}</p> : null}
    </>
  );
}

function Exec({ id }: { id: string }) {
  const [result, setResult] = useState<Schemas["Exec"] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const cmd = ((e.currentTarget as HTMLFormElement).elements.namedItem("cmd") as HTMLInputElement).value;
    setBusy(true);
    setError(null);
    try {
      setResult(await call(api.POST("/v1/leases/{id}/exec", { params: { path: { id } }, body: { cmd } })));
    } catch (err) {
      // No result within the wait: the exec goes on, and is read again until it ends (docs/agent.md).
      const execId = err instanceof ApiFailure && err.code === "exec_timeout" ? err.details.exec_id : undefined;
      if (typeof execId !== "string") setError(messageOf(err));
      else
        for (;;) {
          const exec = await call(api.GET("/v1/leases/{id}/exec/{exec_id}", { params: { path: { id, exec_id: execId } } })).catch((e: unknown) => (setError(messageOf(e)), null));
          if (exec) setResult(exec);
          if (!exec || exec.state === "done" || exec.state === "failed") break;
          await new Promise((r) => setTimeout(r, EXEC_POLL_MS));
        }
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <h2>Exec</h2>
      <form onSubmit={submit} class="exec">
        <label>
          Command <input name="cmd" required maxLength={8192} spellcheck={false} />
        </label>
        <button type="submit" disabled={busy}>
          Run
        </button>
      </form>
      <ErrorNote error={error} />
      {result ? (
        <pre class="exec-output" aria-label="Exec output">
          {`${result.state}, exit ${result.exit_code ?? "—"}\n${result.output ?? ""}`}
        </pre>
      ) : null}
    </>
  );
}

function Receipt({ id }: { id: string }) {
  const [receipt, setReceipt] = useState<Schemas["Receipt"] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    call(api.GET("/v1/receipts/{id}", { params: { path: { id } } })).then(setReceipt, (e) => setError(messageOf(e)));
  }, [id]);
  return (
    <>
      <h2>Receipt</h2>
      <ErrorNote error={error} />
      {receipt ? (
        <dl class="facts">
          <dt>Status</dt>
          <dd>{receipt.status}</dd>
          <dt>Billed</dt>
          <dd>{usd(receipt.actual_usd, 4)}</dd>
          <dt>Estimate</dt>
          <dd>{usd(receipt.estimate_usd, 4)}</dd>
          <dt>Difference</dt>
          <dd>{usd(receipt.difference_usd, 4)}</dd>
          <dt>Windows</dt>
          <dd>{receipt.window_count}</dd>
        </dl>
      ) : null}
    </>
  );
}
