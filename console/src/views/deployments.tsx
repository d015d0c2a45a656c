/**
 * Deployments (docs/deployments.md): the org's deployments as a live table, and one deployment
 * with its `base_url` and `api_key` (each with a copy button) and a chat box that streams an
 * answer through the gateway.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { sseFrames } from "../../../cli/stream.mjs";
import { api, call, failureOf, follow, type Frame, type Schemas } from "../api";
import { gatewayOf, pieceOf } from "../chat";
import { rate } from "../format";
import { Confirm, CopyButton, ErrorNote, Head, messageOf, useLoad } from "../ui";

type Deployment = Schemas["Deployment"];

/**
 * Reads `load` again whenever `follow`ed events arrive, one read at a time: events that come
 * while a read is in flight are answered by one more read after it, never one each.
 */
function useLiveRead<T>(load: () => Promise<T>, eventsPath: string | null) {
  const [value, setValue] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reading = useRef<Promise<void> | null>(null);
  const again = useRef(false);

  const read = useCallback(() => {
    if (reading.current) {
      again.current = true;
      return;
    }
    reading.current = load()
      .then(
        (v) => (setValue(v), setError(null)),
        (e) => setError(messageOf(e)),
      )
      .finally(() => {
        reading.current = null;
        if (again.current) {
          again.current = false;
          read();
        }
      });
  }, [load]);

  useEffect(() => {
    read();
    if (eventsPath === null) return;
    const stop = new AbortController();
    const run = () =>
      void follow(eventsPath, (frame: Frame) => void (frame.event === "end" || read()), stop.signal, (failure) => {
        // Events gone for good (docs/events.md): the read is whole, so reading again and
        // following afresh misses nothing.
        if (failure.code !== "events_gone") return setError(messageOf(failure));
        read();
        run();
      });
    run();
    return () => stop.abort();
  }, [read, eventsPath]);

  return { value, error };
}

export function DeploymentsView() {
  const load = useCallback(() => call(api.GET("/v1/deployments", { params: { query: { limit: 100 } } })), []);
  const { value, error } = useLiveRead(load, "/v1/events");
  const rows = value?.data ?? [];
  return (
    <section aria-labelledby="deployments-title">
      <h1 id="deployments-title">Deployments</h1>
      <p class="hint">
        A deployment serves a model under a name through an OpenAI-compatible gateway; create one with <code>lessor up</code> or{" "}
        <code>PUT /v1/deployments/:name</code>.
      </p>
      <ErrorNote error={error} />
      {value === null && !error ? <p role="status">Loading…</p> : null}
      <NewDeployment />
      <table class="deployments">
        <caption>{rows.length === 1 ? "1 deployment" : `${rows.length} deployments`}</caption>
        <Head columns={["Name", "Model", "State", "Rate", "Lease"]} />
        <tbody>
          {rows.map((d) => (
            <tr key={d.id}>
              <td>
                <a href={`#/deployments/${encodeURIComponent(d.name)}`}>{d.name}</a>
              </td>
              <td>{d.model}</td>
              <td class={`state state-${d.state}`}>{d.state}</td>
              <td>{rate(d.hourly_usd)}</td>
              <td>
                <a href={`#/leases/${d.lease_id}`} aria-label={`Lease ${d.lease_id} of ${d.name}`}>
                  {d.lease_id}
                </a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

interface Draft {
  name: string;
  model: string;
  gpu: string;
  offer: Schemas["Offer"];
}

/**
 * "New deployment": a model of the catalog and a name. The model's smallest placement (the first
 * of its `fits`, as a PUT without a spec would choose) is quoted first, so that the confirmation
 * says what an hour costs; the PUT then asks for that placement.
 */
function NewDeployment() {
  const models = useLoad(() => call(api.GET("/v1/catalog/models")));
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const choices = (models.value?.data ?? []).filter((m) => m.fits.length > 0);

  const review = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const field = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    const model = choices.find((m) => m.id === field("model"));
    if (!model) return;
    const gpu = model.fits[0]!;
    setBusy(true);
    setError(null);
    try {
      const quote = await call(api.POST("/v1/quotes", { body: { kind: "deployment", spec: { gpu } } }));
      setDraft({ name: field("deployment-name"), model: model.id, gpu, offer: quote.offer });
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  const create = async (d: Draft) => {
    setDraft(null);
    setBusy(true);
    try {
      await call(api.PUT("/v1/deployments/{name}", { params: { path: { name: d.name } }, body: { model: d.model, spec: { gpu: d.gpu } } }));
      location.hash = `#/deployments/${encodeURIComponent(d.name)}`;
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <details class="new-lease">
      <summary>New deployment</summary>
      <form onSubmit={review} aria-label="New deployment">
        <label>
          Model{" "}
          <select name="model" required>
            {choices.map((m) => (
              <option key={m.id} value={m.id}>
                {m.id} ({m.min_vram_gb} GB)
              </option>
            ))}
          </select>
        </label>
        <label>
          Deployment name <input name="deployment-name" required maxLength={63} pattern="[a-z0-9][a-z0-9-]{0,62}" title="lowercase letters, digits and '-'" />
        </label>
        <button type="submit" disabled={busy || choices.length === 0}>
          Review deployment
        </button>
      </form>
      <ErrorNote error={error ?? models.error} />
      {draft ? (
        <Confirm title={`Deploy ${draft.model} as ${draft.name}?`} confirmLabel="Create deployment" onCancel={() => setDraft(null)} onConfirm={() => void create(draft)}>
          <p>
            Rents {draft.offer.gpu}×{draft.offer.gpu_count} on {draft.offer.provider} / {draft.offer.region} at {rate(draft.offer.hourly_usd)}, billed while
            it runs (quoted now; the machine rented may differ if this offer goes). Its lease's policy stops it when idle.
          </p>
        </Confirm>
      ) : null}
    </details>
  );
}

/** The last four characters only: the whole key is copied, never shown on screen. */
const masked = (key: string) => `••••••••${key.slice(-4)}`;

export function DeploymentView({ name }: { name: string }) {
  const load = useCallback(() => call(api.GET("/v1/deployments/{name}", { params: { path: { name } } })), [name]);
  // Read once to learn its lease; then that lease's events say when to read it again.
  const [leaseId, setLeaseId] = useState<string | null>(null);
  const { value: d, error } = useLiveRead(load, leaseId === null ? null : `/v1/leases/${encodeURIComponent(leaseId)}/events`);
  useEffect(() => {
    if (d) setLeaseId(d.lease_id);
  }, [d?.lease_id]);

  if (!d) {
    return (
      <section aria-labelledby="deployment-title">
        <h1 id="deployment-title">Deployment {name}</h1>
        <ErrorNote error={error} />
        {error ? null : <p role="status">Loading…</p>}
      </section>
    );
  }
  return (
    <section aria-labelledby="deployment-title">
      <p>
        <a href="#/deployments">← All deployments</a>
      </p>
      <h1 id="deployment-title">{d.name}</h1>
      <ErrorNote error={error} />
      <dl class="facts">
        <dt>Model</dt>
        <dd>{d.model}</dd>
        <dt>State</dt>
        <dd class={`deployment-state state-${d.state}`}>{d.state}</dd>
        <dt>Rate</dt>
        <dd>{rate(d.hourly_usd)}</dd>
        <dt>Lease</dt>
        <dd>
          <a href={`#/leases/${d.lease_id}`}>{d.lease_id}</a>
        </dd>
        <dt>base_url</dt>
        <dd>
          {d.base_url === null ? (
            "none: the installation has no public URL"
          ) : (
            <>
              <code class="base-url">{d.base_url}</code> <CopyButton text={d.base_url} label="Copy base_url" />
            </>
          )}
        </dd>
        <dt>api_key</dt>
        <dd>
          {d.api_key === null ? (
            "shown to a key of the write scope or above"
          ) : (
            <>
              <code>{masked(d.api_key)}</code> <CopyButton text={d.api_key} label="Copy api_key" />
            </>
          )}
        </dd>
      </dl>
      <Replicas deployment={d} />
      <Chat deployment={d} />
    </section>
  );
}

/** Its replicas, their states and requests in flight, and what the scaler will do next and why. */
function Replicas({ deployment: d }: { deployment: Schemas["Deployment"] }) {
  const r = d.replicas;
  const s = d.scaler;
  return (
    <section aria-labelledby="replicas-title">
      <h2 id="replicas-title">Replicas</h2>
      <p>
        min {r.min}, max {r.max}, {r.target_inflight} in flight each; idle after {r.idle_timeout}, then {r.sleep}
      </p>
      {s === null ? (
        <p>Not yet seen by its scaler: it is after the first request or PUT.</p>
      ) : (
        <>
          <table class="replicas">
            <thead>
              <tr>
                <th scope="col">Lease</th>
                <th scope="col">State</th>
                <th scope="col">In flight</th>
              </tr>
            </thead>
            <tbody>
              {s.replicas.map((x) => (
                <tr key={x.lease_id}>
                  <td>
                    <a href={`#/leases/${x.lease_id}`}>{x.lease_id}</a>
                    {x.primary ? " (primary)" : ""}
                  </td>
                  <td class={`replica-state state-${x.state}`}>{x.state}</td>
                  <td>{x.in_flight}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="scaler-next">
            {s.desired} wanted, {s.in_flight} in flight, {s.queued} waiting. Next: <strong>{s.next.action}</strong>
            {s.next.at ? ` at ${s.next.at}` : ""}: {s.next.reason}
          </p>
        </>
      )}
    </section>
  );
}

interface Turn {
  role: "user" | "assistant";
  content: string;
}

/** Sends the conversation to `{base_url}/chat/completions`, streamed, with the deployment's key. */
function Chat({ deployment: d }: { deployment: Deployment }) {
  const [turns, setTurns] = useState<Turn[]>([]);
  const [answer, setAnswer] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const stop = useRef<AbortController | null>(null);
  useEffect(() => () => stop.current?.abort(), []);

  if (d.api_key === null) return null;
  const key = d.api_key;

  const send = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem("chat-message") as HTMLTextAreaElement;
    const content = field.value.trim();
    if (!content) return;
    const messages: Turn[] = [...turns, { role: "user", content }];
    setTurns(messages);
    setError(null);
    setAnswer("");
    field.value = "";
    stop.current = new AbortController();
    let text = "";
    try {
      const res = await fetch(`${gatewayOf(d, location.origin)}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ model: d.model, messages, stream: true }),
        signal: stop.current.signal,
      });
      if (!res.ok) throw await failureOf(res);
      for await (const frame of sseFrames(res.body!) as AsyncGenerator<Frame>) {
        const piece = pieceOf(frame.data);
        if (piece.done) break;
        if ("error" in piece) throw new Error(piece.error);
        text += piece.text;
        setAnswer(text);
      }
      setTurns([...messages, { role: "assistant", content: text }]);
    } catch (err) {
      if (stop.current?.signal.aborted) return;
      setError(messageOf(err));
      if (text) setTurns([...messages, { role: "assistant", content: text }]);
    } finally {
      setAnswer(null);
      stop.current = null;
    }
  };

  return (
    <>
      <h2 id="chat-title">Chat</h2>
      <p class="hint">
        Sent to <code>base_url/chat/completions</code> with the deployment's key, streamed. A stopped deployment is started by the request.
      </p>
      <ol class="chat" aria-labelledby="chat-title" aria-live="polite" aria-busy={answer !== null}>
        {turns.map((t, i) => (
          <li key={i} class={`turn turn-${t.role}`}>
            <span class="who">{t.role === "user" ? "You" : d.model}</span> <span class="content">{t.content}</span>
          </li>
        ))}
        {answer !== null ? (
          <li class="turn turn-assistant streaming">
            <span class="who">{d.model}</span> <span class="content">{answer || "…"}</span>
          </li>
        ) : null}
      </ol>
      <ErrorNote error={error} />
      <form class="chat-form" onSubmit={send} aria-label="Chat with the deployment">
        <label for="chat-message">Message</label>
        <textarea id="chat-message" name="chat-message" rows={3} required />
        <button type="submit" disabled={answer !== null}>
          Send
        </button>
      </form>
    </>
  );
}
