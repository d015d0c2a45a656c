/**
 * Whether a deployment's model server answers (docs/deployments.md "Ready"): `GET /v1/models` with
 * the machine's key lists the model, and the same request without it is refused. The object reads
 * it while the lease boots; decide.ts judges what it says (`modelServerFailure`, `app_ready`).
 * Probes are never activity.
 */
import { MODEL_PORT, type Machine, type Provider } from "../providers/contract";
import type { Observation, ServedModel } from "./state";

/** One probe waits at most this long for an answer: a server still loading may hold a connection. */
export const PROBE_TIMEOUT_MS = 5_000;

/** Whether an OpenAI-style model list (`{data: [{id}]}`) names `model`. */
export function listsModel(body: unknown, model: string): boolean {
  const data = (body as { data?: unknown } | null)?.data;
  return Array.isArray(data) && data.some((m) => (m as { id?: unknown } | null)?.id === model);
}

/** Whether an answer to a request without the key shows the server refused it (RFC 9110: 401 or 403). */
export function refusesAnonymous(status: number): boolean {
  return status === 401 || status === 403;
}

/**
 * What the model server on `machine` says now: not ready while the provider publishes no way to it,
 * it does not answer, or it does not list the model; exposed when, listing it, it also answers
 * without its key (anything but 401/403).
 */
export async function probeModelServer(provider: Provider, machine: Machine, model: ServedModel): Promise<Pick<Observation, "app_ready" | "exposed">> {
  const endpoint = await provider.endpoint?.(machine, MODEL_PORT).catch(() => null);
  if (!endpoint) return { app_ready: false, exposed: false };
  const get = (headers: Record<string, string>) =>
    endpoint.fetch("/v1/models", { headers: { accept: "application/json", ...headers }, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  try {
    const keyed = await get({ authorization: `Bearer ${model.key}` });
    const body = keyed.ok ? await keyed.json().catch(() => null) : (await keyed.body?.cancel(), null);
    if (!listsModel(body, model.id)) return { app_ready: false, exposed: false };
    const anonymous = await get({});
    await anonymous.body?.cancel();
    return refusesAnonymous(anonymous.status) ? { app_ready: true, exposed: false } : { app_ready: false, exposed: true };
  } catch {
    // Not listening yet, reset, timed out: a server still starting.
    return { app_ready: false, exposed: false };
  }
}
