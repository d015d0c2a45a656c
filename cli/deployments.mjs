// @ts-check
/**
 * Deployments from a terminal: `lessor up NAME --model M` serves a model and prints what any
 * OpenAI client needs, `lessor env NAME` prints it as `export` lines, `lessor down NAME` ends it.
 */
import { call } from "./client.mjs";
import { CliError, EXIT } from "./exit-codes.mjs";
import { fields, hourly, stateText } from "./format.mjs";
import { DETACHED_EXIT, exitCodeOfRelease } from "./occupant.mjs";

/** @typedef {import("./commands.mjs").Ctx} Ctx */
/** @typedef {import("./api-types").components["schemas"]} Schemas */

const READY_POLL_MS = 2_000;

/** Reasons a deployment's lease ends with when its model server, not its machine, failed. */
const MODEL_SERVER_REASONS = new Set(["model_server_failed", "endpoint_exposed", "startup_timeout"]);

/** The CLI's exit code for a deployment whose lease was released before its model answered. @param {string | null} reason */
export function exitCodeOfDeployment(reason) {
  return reason !== null && MODEL_SERVER_REASONS.has(reason) ? EXIT.MODEL_SERVER : exitCodeOfRelease(reason);
}

/**
 * `--replicas MIN:MAX` (or `N` for MIN = MAX = N) as the request's `replicas`.
 * @param {string} text @returns {{ min: number, max: number }}
 */
export function parseReplicas(text) {
  const m = /^([0-9]{1,2})(?::([0-9]{1,2}))?$/.exec(text.trim());
  if (!m) throw new CliError(`--replicas takes MIN:MAX (e.g. 1:3, 0:2) or N, not "${text}"`, EXIT.USAGE, { code: "invalid_request", details: { field: "replicas" } });
  const min = Number(m[1]);
  const max = m[2] === undefined ? Math.max(min, 1) : Number(m[2]);
  return { min, max };
}

/**
 * The deployment's replicas in words: each with its state and requests in flight, and what the
 * scaler will do next and why. @param {Pick<Schemas["Deployment"], "replicas" | "scaler">} d
 * @returns {Array<[string, string | null]>}
 */
export function replicaFields(d) {
  const r = d.replicas;
  const settings = `min ${r.min}, max ${r.max}, ${r.target_inflight} in flight each; idle ${r.idle_timeout}, then ${r.sleep}`;
  const s = d.scaler;
  if (!s) return [["replicas", settings]];
  const each = s.replicas.map((x) => `${x.lease_id}${x.primary ? "*" : ""} ${x.state} (${x.in_flight} in flight)`).join("; ");
  return [
    ["replicas", `${settings}\n${each || "none"}`],
    ["scaler", `${s.desired} wanted, ${s.in_flight} in flight, ${s.queued} waiting; next: ${s.next.action}${s.next.at ? ` at ${s.next.at}` : ""} (${s.next.reason})`],
  ];
}

/** @param {Ctx} ctx @param {Schemas["Deployment"]} d */
function printDeployment(ctx, d) {
  ctx.print(d, () =>
    fields([
      ["deployment", `${d.name} (${d.id})`],
      ["state", stateText(d.state, ctx.paint)],
      ["model", d.model],
      ["base_url", d.base_url ?? "none: the installation has no LESSOR_PUBLIC_URL"],
      ["api_key", d.api_key ?? "(needs a key with the write scope)"],
      ["rate", d.hourly_usd === null ? null : hourly(d.hourly_usd)],
      ["lease", d.lease_id],
      ...replicaFields(d),
    ]),
  );
}

/**
 * `lessor up NAME --model M [--gpu G] [--replicas MIN:MAX] [--recreate] [--no-wait]`: serves M under NAME (made,
 * started again or found), waits until the model answers, and prints base_url, api_key and model.
 * @param {Ctx} ctx @param {string[]} args @param {Record<string, any>} f
 */
export async function up(ctx, [name], f) {
  const n = /** @type {string} */ (name);
  /** @type {Schemas["DeploymentConfig"]} */
  const body = { model: f.model, ...(f.gpu ? { spec: { gpu: f.gpu } } : {}), ...(f.replicas ? { replicas: parseReplicas(f.replicas) } : {}) };
  const query = f.recreate ? { recreate: /** @type {const} */ ("true") } : {};
  let d = await call(ctx.api().PUT("/v1/deployments/{name}", { params: { path: { name: n }, query }, body }));
  if (f.wait !== false && d.state !== "ready") {
    ctx.note(`deployment ${d.name}: ${d.state}, waiting for ${d.model} to answer; Ctrl-C stops waiting (the deployment goes on)`);
    const controller = new AbortController();
    const off = ctx.io.onInterrupt?.(() => controller.abort()) ?? (() => undefined);
    try {
      while (d.state !== "ready" && d.state !== "released" && !controller.signal.aborted) {
        await new Promise((r) => setTimeout(r, READY_POLL_MS));
        d = await call(ctx.api().GET("/v1/deployments/{name}", { params: { path: { name: n } } }));
      }
    } finally {
      off();
    }
    if (d.state === "released") {
      const l = await call(ctx.api().GET("/v1/leases/{id}", { params: { path: { id: d.lease_id } } }));
      const reason = l.release_reason ?? null;
      throw new CliError(`deployment ${d.name}: its lease ${d.lease_id} was released (${reason ?? "no reason given"}) before the model answered`, exitCodeOfDeployment(reason), {
        code: reason ?? "released",
        details: { deployment: d.name, lease_id: d.lease_id, release_reason: reason },
      });
    }
    if (controller.signal.aborted) {
      printDeployment(ctx, d);
      return DETACHED_EXIT;
    }
  }
  printDeployment(ctx, d);
  return EXIT.OK;
}

/**
 * `lessor env NAME`: OPENAI_BASE_URL, OPENAI_API_KEY and LESSOR_MODEL_ID as `export` lines, for
 * `eval "$(lessor env NAME)"`. With `--json`, the deployment itself.
 * @param {Ctx} ctx @param {string[]} args
 */
export async function env(ctx, [name]) {
  const n = /** @type {string} */ (name);
  if (ctx.json) {
    printDeployment(ctx, await call(ctx.api().GET("/v1/deployments/{name}", { params: { path: { name: n } } })));
    return;
  }
  const text = await call(ctx.api().GET("/v1/deployments/{name}/env", { params: { path: { name: n } }, parseAs: "text" }));
  ctx.io.stdout.write(String(text).endsWith("\n") ? String(text) : `${text}\n`);
}

/** `lessor down NAME`: ends the deployment's lease and forgets the deployment. @param {Ctx} ctx @param {string[]} args */
export async function down(ctx, [name]) {
  const d = await call(ctx.api().DELETE("/v1/deployments/{name}", { params: { path: { name: /** @type {string} */ (name) } } }));
  ctx.print(d, () => `${d.name}: ended (lease ${d.lease_id} is releasing)`);
}
