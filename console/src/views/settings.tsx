/**
 * Settings (admin keys): API keys, provider keys and their verification, webhooks. A secret the
 * API shows once (a new key's, a new webhook's) is shown here once too, with a copy button, and
 * kept nowhere.
 */
import { useState } from "preact/hooks";
import { api, call, type Schemas } from "../api";
import { time } from "../format";
import { Confirm, CopyButton, ErrorNote, Head, messageOf, useLoad } from "../ui";

export function SettingsView() {
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <Keys />
      <Providers />
      <Webhooks />
    </section>
  );
}

/** A secret shown once. */
function Secret({ label, secret }: { label: string; secret: string }) {
  return (
    <p class="secret" role="status">
      {label} (shown once, copy it now): <code>{secret}</code> <CopyButton text={secret} label={`Copy ${label}`} />
    </p>
  );
}

/** Runs `act`, then `after`; an error is shown. */
function useAct() {
  const [error, setError] = useState<string | null>(null);
  const act = async (work: () => Promise<unknown>, after: () => void) => {
    setError(null);
    try {
      await work();
      after();
    } catch (e) {
      setError(messageOf(e));
    }
  };
  return { error, act };
}

function Keys() {
  const keys = useLoad(() => call(api.GET("/v1/keys")));
  const [secret, setSecret] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<Schemas["ApiKey"] | null>(null);
  const { error, act } = useAct();
  const create = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const name = (form.elements.namedItem("key-name") as HTMLInputElement).value.trim();
    const scope = (form.elements.namedItem("key-scope") as HTMLSelectElement).value as Schemas["ApiKey"]["scope"];
    void act(
      async () => setSecret((await call(api.POST("/v1/keys", { body: { name, scope } }))).secret),
      () => (form.reset(), keys.reload()),
    );
  };
  return (
    <>
      <h2>API keys</h2>
      <ErrorNote error={keys.error ?? error} />
      {secret ? <Secret label="New API key" secret={secret} /> : null}
      <table>
        <Head columns={["Name", "Prefix", "Scope", "Created", "Revoked", "Action"]} />
        <tbody>
          {(keys.value?.data ?? []).map((k) => (
            <tr key={k.id}>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}</code>
              </td>
              <td>{k.scope}</td>
              <td>{time(k.created_at)}</td>
              <td>{time(k.revoked_at)}</td>
              <td>
                {k.revoked_at ? null : (
                  <button type="button" aria-label={`Revoke key ${k.name}`} onClick={() => setRevoking(k)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {revoking ? (
        <Confirm
          title={`Revoke ${revoking.name}?`}
          confirmLabel="Revoke key"
          onCancel={() => setRevoking(null)}
          onConfirm={() => {
            const id = revoking.id;
            setRevoking(null);
            void act(() => call(api.DELETE("/v1/keys/{id}", { params: { path: { id } } })), keys.reload);
          }}
        >
          <p>Every request with this key is refused from now on (a console signed in with it signs out). It cannot be undone.</p>
        </Confirm>
      ) : null}
      <form onSubmit={create} class="inline" aria-label="New API key">
        <label>
          Key name <input name="key-name" required maxLength={64} />
        </label>
        <label>
          Scope{" "}
          <select name="key-scope">
            <option>read</option>
            <option>write</option>
            <option>admin</option>
          </select>
        </label>
        <button type="submit">Create key</button>
      </form>
    </>
  );
}

function Providers() {
  const providers = useLoad(() => call(api.GET("/v1/providers")));
  const { error, act } = useAct();
  const save = (name: string) => (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const api_key = (form.elements.namedItem("provider-key") as HTMLInputElement).value;
    void act(() => call(api.PUT("/v1/providers/{name}", { params: { path: { name } }, body: { api_key } })), () => (form.reset(), providers.reload()));
  };
  const params = (name: string) => ({ params: { path: { name } } });
  return (
    <>
      <h2>Provider keys</h2>
      <ErrorNote error={providers.error ?? error} />
      <table>
        <Head columns={["Provider", "Usable", "Verification", "Key"]} />
        <tbody>
          {(providers.value?.data ?? []).map((p) => (
            <tr key={p.name}>
              <th scope="row">{p.name}</th>
              <td>{p.usable ? "yes" : "no"}</td>
              <td>
                {p.verification.status}
                {p.verification.at ? ` (${time(p.verification.at)})` : ""}
                {p.verification.error ? `: ${p.verification.error}` : ""}
              </td>
              <td>
                {p.needs_key ? (
                  <form onSubmit={save(p.name)} class="inline" aria-label={`${p.name} key`}>
                    <label>
                      {p.name} API key <input name="provider-key" type="password" autocomplete="off" required />
                    </label>
                    <button type="submit" aria-label={`Save the ${p.name} key`}>
                      Save
                    </button>
                    {p.configured ? (
                      <>
                        <button type="button" aria-label={`Verify the ${p.name} key`} onClick={() => void act(() => call(api.POST("/v1/providers/{name}/verify", params(p.name))), providers.reload)}>
                          Verify
                        </button>
                        <button type="button" aria-label={`Remove the ${p.name} key`} onClick={() => void act(() => call(api.DELETE("/v1/providers/{name}", params(p.name))), providers.reload)}>
                          Remove
                        </button>
                      </>
                    ) : null}
                  </form>
                ) : (
                  "no key needed"
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

function Webhooks() {
  const hooks = useLoad(() => call(api.GET("/v1/webhooks")));
  const [secret, setSecret] = useState<string | null>(null);
  const { error, act } = useAct();
  const create = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const url = (form.elements.namedItem("hook-url") as HTMLInputElement).value.trim();
    const events = (form.elements.namedItem("hook-events") as HTMLInputElement).value.split(",").map((s) => s.trim()).filter(Boolean);
    void act(async () => setSecret((await call(api.POST("/v1/webhooks", { body: { url, events } }))).secret), () => (form.reset(), hooks.reload()));
  };
  const params = (id: string) => ({ params: { path: { id } } });
  return (
    <>
      <h2>Webhooks</h2>
      <ErrorNote error={hooks.error ?? error} />
      {secret ? <Secret label="Webhook signing secret" secret={secret} /> : null}
      <table>
        <Head columns={["URL", "Events", "Enabled", "Actions"]} />
        <tbody>
          {(hooks.value?.data ?? []).map((h) => (
            <tr key={h.id}>
              <td>{h.url}</td>
              <td>{h.events.join(", ")}</td>
              <td>{h.enabled ? "yes" : `no (${h.disabled_reason ?? "disabled"})`}</td>
              <td>
                {h.enabled ? null : (
                  <button type="button" aria-label={`Enable ${h.url}`} onClick={() => void act(() => call(api.PATCH("/v1/webhooks/{id}", { ...params(h.id), body: { enabled: true } })), hooks.reload)}>
                    Enable
                  </button>
                )}
                <button type="button" aria-label={`Delete ${h.url}`} onClick={() => void act(() => call(api.DELETE("/v1/webhooks/{id}", params(h.id))), hooks.reload)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form onSubmit={create} class="inline" aria-label="New webhook">
        <label>
          Endpoint URL <input name="hook-url" type="url" required />
        </label>
        <label>
          Events (comma-separated, * for all) <input name="hook-events" defaultValue="*" required />
        </label>
        <button type="submit">Add webhook</button>
      </form>
    </>
  );
}
