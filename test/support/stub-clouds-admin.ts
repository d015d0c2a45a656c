/**
 * What a test needs to know about the stub clouds (test/support/stub-clouds/), without Node: the
 * fixed API keys, the provider names, and a client for the admin endpoints shaped like the sim's
 * own `simAdmin()` (src/providers/sim/adapter.ts). It only uses `fetch`, so a test in the Workers
 * pool can import it as well as one in Node.
 */
import type { SimFaults } from "../../src/providers/sim/faults";
import type { SimBillingRecord, SimLedger } from "../../src/providers/sim/machines";
import { CLOUD_PROVIDER_NAMES } from "../../src/providers/names";

export const STUB_PROVIDERS = CLOUD_PROVIDER_NAMES;
export type StubProvider = (typeof STUB_PROVIDERS)[number];

/** The one key each stub provider accepts; any other key is refused as that provider refuses it. */
export const STUB_API_KEYS: Readonly<Record<StubProvider, string>> = {
  runpod: "stub-runpod-key",
  vast: "stub-vast-key",
  lambda: "stub-lambda-key",
};

/** The one SSH key registered with the stub Lambda account (a launch must name exactly it). */
export const STUB_LAMBDA_SSH_KEY_NAME = "lessor-stub";

/** Where the stub server is: the vitest config passes it to the global setup and to the Worker. */
export const STUB_PORT_ENV = "LESSOR_STUB_PORT";

/** The adapter's `baseUrl` for one provider: its paths are appended as the document writes them. */
export function stubBaseUrl(serverUrl: string, provider: StubProvider): string {
  return `${serverUrl.replace(/\/+$/, "")}/${provider}`;
}

/** What the global setup provides to tests (`inject("stubClouds")`); null when nothing is served. */
export interface StubCloudsInfo {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The providers whose documents were found, and so are served. */
  providers: StubProvider[];
}

export interface StubHealth {
  ok: true;
  providers: StubProvider[];
  /** Providers not served, with why (their document is absent). */
  missing: Partial<Record<StubProvider, string>>;
}

/** One contract violation, as recorded by the provider's ContractStub. */
export interface StubViolation {
  at: string;
  message: string;
}

export interface StubViolations {
  /** Per provider: requests the document refuses and answers it does not describe. Must be empty. */
  violations: Partial<Record<StubProvider, StubViolation[]>>;
  /** Per provider: undocumented statuses answered on purpose (a gateway's 504, Vast's 429). Not failures. */
  notes: Partial<Record<StubProvider, StubViolation[]>>;
}

/** The admin endpoints of one stub provider, as `simAdmin()` offers the sim's. */
export function stubCloudAdmin(serverUrl: string, provider: StubProvider, fetcher: typeof fetch = (i, init) => fetch(i, init)) {
  const base = `${serverUrl.replace(/\/+$/, "")}/__admin`;
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const init: RequestInit = { method, headers: { "content-type": "application/json" } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetcher(`${base}${path}`, init);
    const text = await res.text();
    if (!res.ok) throw new Error(`stub admin: ${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  }
  return {
    getFaults: () => call<SimFaults>("GET", `/${provider}/faults`),
    /** Merges `patch` into the faults in force; a `seed` restarts the PRNG. */
    setFaults: (patch: Partial<SimFaults>) => call<SimFaults>("PUT", `/${provider}/faults`, patch),
    /** Forgets every machine and restores the default faults. */
    reset: () => call<{ ok: true }>("POST", `/${provider}/reset`),
    /** The next create (whose JSON body contains `match`, when given) is answered so (held to the document) instead of creating. */
    injectCreate: (answer: { status: number; body: unknown; match?: string }) => call<{ ok: true }>("POST", `/${provider}/inject-create`, answer),
    /** RunPod only: the next create (whose JSON body contains `match`) lands in `data_center_id`, whatever it asked. */
    misplaceCreate: (ask: { data_center_id: string; match?: string }) => call<{ ok: true }>("POST", `/${provider}/misplace-create`, ask),
    getLedger: (labelPrefix = "") => call<SimLedger>("GET", `/${provider}/ledger?label_prefix=${encodeURIComponent(labelPrefix)}`),
    getBilling: (range: { from?: number; to?: number } = {}) => {
      const qs = new URLSearchParams();
      if (range.from !== undefined) qs.set("from", String(range.from));
      if (range.to !== undefined) qs.set("to", String(range.to));
      return call<{ now: number; complete_through: number; window_ms: number; records: SimBillingRecord[] }>("GET", `/${provider}/billing?${qs}`);
    },
    /** Every violation and note recorded for this provider since the last clear. */
    getViolations: () => call<{ violations: StubViolation[]; notes: StubViolation[] }>("GET", `/${provider}/violations`),
    clearViolations: () => call<{ ok: true }>("POST", `/${provider}/violations/clear`),
  };
}

export type StubCloudAdmin = ReturnType<typeof stubCloudAdmin>;

/** The server's health: which providers are served. Rejects when no server answers. */
export async function stubCloudsHealth(serverUrl: string, fetcher: typeof fetch = (i, init) => fetch(i, init)): Promise<StubHealth> {
  const res = await fetcher(`${serverUrl.replace(/\/+$/, "")}/__admin/health`);
  if (!res.ok) throw new Error(`stub health: ${res.status}`);
  return (await res.json()) as StubHealth;
}

/** Every provider's violations and notes at once. */
export async function stubCloudsViolations(serverUrl: string, fetcher: typeof fetch = (i, init) => fetch(i, init)): Promise<StubViolations> {
  const res = await fetcher(`${serverUrl.replace(/\/+$/, "")}/__admin/violations`);
  if (!res.ok) throw new Error(`stub violations: ${res.status}`);
  return (await res.json()) as StubViolations;
}
