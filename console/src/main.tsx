/**
 * The lessor console (docs/console.md): sign in with an API key, then Leases, a lease,
 * Deployments, a deployment, Volumes, Catalog, Usage and Settings, routed by the URL's hash so that /console/ is the one page served.
 */
import "uplot/dist/uPlot.min.css";
import "../styles.css";
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { signIn, signOut, storedKey, whenSignedOut } from "./api";
import { ClockProvider, ErrorNote, messageOf } from "./ui";
import { CatalogView } from "./views/catalog";
import { DeploymentsView, DeploymentView } from "./views/deployments";
import { LeaseView } from "./views/lease";
import { LeasesView } from "./views/leases";
import { SettingsView } from "./views/settings";
import { UsageView } from "./views/usage";
import { VolumesView } from "./views/volumes";

const VIEWS = [
  { path: "leases", title: "Leases" },
  { path: "deployments", title: "Deployments" },
  { path: "volumes", title: "Volumes" },
  { path: "catalog", title: "Catalog" },
  { path: "usage", title: "Usage" },
  { path: "settings", title: "Settings" },
] as const;

function useHash(): string[] {
  const read = () => location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  const [parts, setParts] = useState(read);
  useEffect(() => {
    const on = () => setParts(read());
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return parts;
}

function SignIn({ reason, onSignedIn }: { reason: string | null; onSignedIn: () => void }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const input = (e.currentTarget as HTMLFormElement).elements.namedItem("api-key") as HTMLInputElement;
    setBusy(true);
    setError(null);
    try {
      await signIn(input.value.trim());
      input.value = "";
      onSignedIn();
    } catch (err) {
      setError(`Sign-in refused: ${messageOf(err)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="signin">
      <h1>lessor console</h1>
      {reason ? (
        <p class="notice" role="status">
          Signed out: {reason}
        </p>
      ) : null}
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autocomplete="off" required spellcheck={false} />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <ErrorNote error={error} />
      <p class="hint">The key is kept in this tab only (session storage) and forgotten when the tab closes or on "Sign out".</p>
    </main>
  );
}

function Shell() {
  const parts = useHash();
  const [view = "leases", id] = parts;
  const current = VIEWS.find((v) => v.path === view) ?? VIEWS[0];
  useEffect(() => {
    document.title = `${id ?? current.title} · lessor console`;
  }, [current, id]);
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById("main")?.focus())}>
        Skip to content
      </a>
      <header>
        <span class="brand">lessor</span>
        <nav aria-label="Views">
          <ul>
            {VIEWS.map((v) => (
              <li key={v.path}>
                <a href={`#/${v.path}`} aria-current={v === current ? "page" : undefined}>
                  {v.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button type="button" onClick={() => signOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {current.path === "leases" && id ? <LeaseView id={id} key={id} /> : null}
        {current.path === "leases" && !id ? <LeasesView /> : null}
        {current.path === "deployments" && id ? <DeploymentView name={decodeURIComponent(id)} key={id} /> : null}
        {current.path === "deployments" && !id ? <DeploymentsView /> : null}
        {current.path === "volumes" ? <VolumesView /> : null}
        {current.path === "catalog" ? <CatalogView /> : null}
        {current.path === "usage" ? <UsageView /> : null}
        {current.path === "settings" ? <SettingsView /> : null}
      </main>
    </>
  );
}

function App() {
  const [signedIn, setSignedIn] = useState(storedKey() !== null);
  const [reason, setReason] = useState<string | null>(null);
  useEffect(
    () =>
      whenSignedOut((why) => {
        setReason(why);
        setSignedIn(false);
      }),
    [],
  );
  return signedIn ? (
    <ClockProvider>
      <Shell />
    </ClockProvider>
  ) : (
    <SignIn reason={reason} onSignedIn={() => (setReason(null), setSignedIn(true))} />
  );
}

render(<App />, document.getElementById("app")!);
