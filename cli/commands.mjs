// @ts-check
/**
 * What each command does: one or two API calls through the typed client, then the answer printed
 * as it came (`--json`) or for a person. Loaded by cli/main.mjs only when a command runs.
 */
import { apiClient, call } from "./client.mjs";
import { checkKeyTransport, checkUrl, configFile, resolveConfig, writeConfigFile } from "./config.mjs";
import { CliError, EXIT, usageError } from "./exit-codes.mjs";
import { fields, hourly, jsonText, money, painter, relative, stateText, table, visible, wantsColor } from "./format.mjs";
import { readLine, readSecret } from "./secret.mjs";
import { follow } from "./stream.mjs";
import { replicaFields } from "./deployments.mjs";

export { kill, logs, run, scratchExec, scratchRun } from "./occupant.mjs";
export { down, env, up } from "./deployments.mjs";
export { artifactsGet, artifactsLs } from "./artifacts.mjs";

/** @typedef {import("./main.mjs").Io} Io */
/** @typedef {import("./main.mjs").GlobalFlags} GlobalFlags */
/** @typedef {import("./client.mjs").Api} Api */
/** @typedef {import("./api-types").components["schemas"]} Schemas */

/**
 * @typedef {{
 *   io: Io,
 *   flags: GlobalFlags,
 *   json: boolean,
 *   paint: import("./format.mjs").Paint,
 *   api: () => Api,
 *   config: () => { url: string, apiKey?: string },
 *   print: (doc: unknown, human: () => string) => void,
 *   note: (text: string) => void,
 *   shown: (text: string) => string,
 * }} Ctx
 */

/** @param {Io} io @param {GlobalFlags} flags @returns {Ctx} */
export function context(io, flags) {
  const json = flags.json === true;
  /** @type {Api | null} */
  let client = null;
  /** @type {{ url: string, apiKey?: string } | null} */
  let settings = null;
  const config = () => (settings ??= resolveConfig(flags, io.env));
  return {
    io,
    flags,
    json,
    paint: painter(!json && wantsColor(io.stdout, io.env)),
    api: () => (client ??= apiClient(config(), io.version)),
    config,
    print: (doc, human) => {
      const text = json ? jsonText(doc, 2) : human();
      if (text) io.stdout.write(`${text}\n`);
    },
    note: (text) => io.stderr.write(`${text}\n`),
    // What came from a machine, escaped for a terminal unless --raw (docs/security.md, hardening item 15).
    shown: (text) => (flags.raw === true ? text : visible(text)),
  };
}

const LEASE_ID = /^ls_[0-9a-z]{26}$/;

/**
 * A flag that is a number of dollars: positive, finite.
 * @param {string} flag
 * @param {string} text
 */
export function parseUsd(flag, text) {
  const n = Number(text.replace(/^\$/, ""));
  if (text.trim() === "" || !Number.isFinite(n) || n <= 0) throw usageError(`${flag}: "${text}" is not a positive number of dollars`);
  return n;
}

/** @param {string} flag @param {string | undefined} text */
export function parseLimit(flag, text) {
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,5}$/.test(text)) throw usageError(`${flag}: "${text}" is not a positive whole number`);
  return Number(text);
}

/** `key=value` pairs into an object. @param {string} flag @param {string[]} pairs */
export function parsePairs(flag, pairs) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw usageError(`${flag}: "${pair}" is not key=value`);
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/** Tells where the next page starts, on stderr. @param {Ctx} ctx @param {string | null} cursor @param {string} command */
function morePages(ctx, cursor, command) {
  if (cursor && !ctx.json) ctx.note(`more: lessor ${command} --cursor ${cursor}`);
}

/**
 * A lease id as given, or the id of the lease with that name: its live one, else its newest.
 * @param {Ctx} ctx
 * @param {string} ref
 */
export async function leaseIdOf(ctx, ref) {
  if (LEASE_ID.test(ref)) return ref;
  if (ref.startsWith("ls_")) throw new CliError(`lease ${ref} was not found`, EXIT.NOT_FOUND, { code: "not_found", details: { id: ref } });
  const page = await call(ctx.api().GET("/v1/leases", { params: { query: { name: ref, limit: 50 } } }));
  const lease = page.data.find((l) => l.state !== "released") ?? page.data[0];
  if (!lease) throw new CliError(`no lease is named ${ref}`, EXIT.NOT_FOUND, { code: "not_found", details: { name: ref } });
  return lease.id;
}

// --- login ---------------------------------------------------------------------------------

/** @param {Ctx} ctx */
export async function login(ctx) {
  const { io, flags } = ctx;
  const given = flags.url ?? io.env.LESSOR_URL;
  const url = checkUrl(given ?? (io.stdin.isTTY ? await readLine(io, "lessor URL: ") : ""), given ? "--url" : "URL") ;
  // Before the key is asked for: it would be sent to this URL to prove it.
  checkKeyTransport(url, flags.insecure);
  const apiKey = await readSecret(io, "API key (not echoed): ");
  if (!apiKey) throw usageError("no API key was given on the prompt or stdin");
  // Proven before it is stored: a key lessor refuses is never written.
  await call(apiClient({ url, apiKey }, io.version).GET("/v1/catalog/gpus"));
  const file = configFile(io.env);
  writeConfigFile(file, { url, api_key: apiKey });
  ctx.print({ url, config_file: file }, () => `logged in to ${url}; wrote ${file}`);
}

// --- catalog -------------------------------------------------------------------------------

/** @param {Ctx} ctx */
export async function gpus(ctx) {
  const doc = await call(ctx.api().GET("/v1/catalog/gpus"));
  ctx.print(doc, () =>
    table(
      ["GPU", "VRAM", "OFFERS", "FROM"],
      doc.data.map((g) => [g.name, `${g.vram_gb} GB`, String(g.offers), g.cheapest_hourly_usd === null ? "-" : hourly(g.cheapest_hourly_usd)]),
      { right: ["VRAM", "OFFERS", "FROM"] },
    ),
  );
}

/** GPU specs a model's row shows: the smallest few, and how many more the API lists. */
const FITS_SHOWN = 3;

/** @param {Ctx} ctx */
export async function models(ctx) {
  const doc = await call(ctx.api().GET("/v1/catalog/models"));
  ctx.print(doc, () =>
    table(
      ["MODEL", "VARIANT", "VRAM", "HOST RAM", "CONTEXT", "CPU", "FITS"],
      doc.data.map((m) => {
        const more = m.fits.length - FITS_SHOWN;
        return [
          m.id,
          m.variant,
          `${m.min_vram_gb} GB`,
          `${m.min_host_ram_gb} GB`,
          String(m.max_model_len),
          m.cpu_cores === null ? "-" : `${m.cpu_cores} vCPU`,
          m.fits.slice(0, FITS_SHOWN).join(", ") + (more > 0 ? ` (+${more} more)` : ""),
        ];
      }),
      { right: ["VRAM", "HOST RAM", "CONTEXT", "CPU"] },
    ),
  );
}

/** @param {Ctx} ctx @param {string[]} _args @param {Record<string, any>} f */
export async function offers(ctx, _args, f) {
  const query = {
    gpu: f.gpu,
    region: f.region,
    provider: f.provider,
    max_hourly_usd: f.maxHourly === undefined ? undefined : parseUsd("--max-hourly", f.maxHourly),
    spot: f.spot ? /** @type {const} */ ("true") : undefined,
    limit: parseLimit("--limit", f.limit),
    cursor: f.cursor,
  };
  const doc = await call(ctx.api().GET("/v1/catalog/offers", { params: { query } }));
  ctx.print(doc, () =>
    table(
      ["OFFER", "GPU", "VRAM", "REGION", "PRICE", "SPOT", "AVAILABILITY"],
      doc.data.map((o) => [
        o.id,
        o.gpu === "cpu" ? `cpu (${o.vcpu} vCPU)` : `${o.gpu} x${o.gpu_count}`,
        o.gpu === "cpu" ? "-" : `${o.vram_gb} GB`,
        o.region,
        hourly(o.hourly_usd),
        o.spot ? "spot" : "",
        o.stale ? `${o.availability} (stale)` : o.availability,
      ]),
      { right: ["VRAM", "PRICE"] },
    ),
  );
  morePages(ctx, doc.next_cursor, "offers");
}

/** @param {Ctx} ctx @param {string[]} _args @param {Record<string, any>} f */
export async function quote(ctx, _args, f) {
  /** @type {Schemas["QuoteRequest"]} */
  const body = {
    spec: {
      gpu: f.gpu,
      ...(f.region.length ? { regions: f.region } : {}),
      ...(f.provider.length ? { providers: f.provider } : {}),
      ...(f.maxHourly !== undefined ? { max_hourly_usd: parseUsd("--max-hourly", f.maxHourly) } : {}),
      ...(f.spot ? { spot: true } : {}),
    },
    ...(f.kind ? { kind: f.kind } : {}),
    ...(f.ttl ? { policy: { ttl: f.ttl } } : {}),
  };
  const q = await call(ctx.api().POST("/v1/quotes", { body }));
  const now = ctx.io.now();
  ctx.print(q, () =>
    fields([
      ["quote", `${q.id} (expires ${relative(q.expires_at, now)})`],
      ["offer", `${q.offer.provider} ${q.offer.gpu} x${q.offer.gpu_count}, ${q.offer.region}${q.offer.spot ? `, spot${q.offer.on_demand_hourly_usd != null ? ` (on-demand ${hourly(q.offer.on_demand_hourly_usd)})` : ""}` : ""} (${q.offer.id})`],
      ["rate", `${hourly(q.estimate.hourly_usd)} (compute ${money(q.estimate.parts.compute_usd)}, bandwidth ${money(q.estimate.parts.bandwidth_usd)})`],
      ["ceiling", ceilingText(q)],
      ["policy", `ttl ${q.policy.ttl ?? "none"}, max lifetime ${q.policy.max_lifetime ?? "none"}`],
      ["fallbacks", `${q.fallbacks.length} (of ${q.candidates} offers that fit)`],
    ]),
  );
}

// --- leases --------------------------------------------------------------------------------

/** @param {Ctx} ctx @param {string[]} _args @param {Record<string, any>} f */
export async function ls(ctx, _args, f) {
  const query = { state: f.state, kind: f.kind, name: f.name, limit: parseLimit("--limit", f.limit), cursor: f.cursor };
  const doc = await call(ctx.api().GET("/v1/leases", { params: { query } }));
  const now = ctx.io.now();
  ctx.print(doc, () =>
    doc.data.length === 0
      ? "no leases"
      : table(
          ["LEASE", "NAME", "KIND", "STATE", "GPU", "PROVIDER", "RATE", "COST", "TTL", "CREATED"],
          doc.data.map((l) => [
            l.id,
            l.name ?? "-",
            l.kind,
            stateText(l.state, ctx.paint),
            l.offer ? `${l.offer.gpu} x${l.offer.gpu_count}` : "-",
            l.provider,
            hourly(l.hourly_usd),
            money(l.billing.actual_usd ?? l.billing.estimate.amount_usd),
            l.state === "released" ? "-" : relative(l.ttl_expires_at, now),
            relative(l.created_at, now),
          ]),
          { right: ["RATE", "COST"] },
        ),
  );
  morePages(ctx, doc.next_cursor, "ls");
}

/** @param {Ctx} ctx @param {string[]} args */
export async function status(ctx, [ref]) {
  const id = await leaseIdOf(ctx, /** @type {string} */ (ref));
  const l = await call(ctx.api().GET("/v1/leases/{id}", { params: { path: { id } } }));
  // A deployment's lease is named after it: its replicas and scaler are shown with it.
  const deployment = l.kind === "deployment" && l.name ? await ctx.api().GET("/v1/deployments/{name}", { params: { path: { name: l.name } } }).then((r) => r.data ?? null, () => null) : null;
  const now = ctx.io.now();
  const est = l.billing.estimate;
  ctx.print(l, () =>
    fields([
      ["lease", l.name ? `${l.id} (${l.name})` : l.id],
      ["kind", l.kind],
      ["state", `${stateText(l.state, ctx.paint)} since ${relative(l.state_since, now)}${l.release_reason ? ` (${l.release_reason})` : ""}`],
      ["provider", l.provider],
      ["machine", l.machine ? `${l.machine.id}${l.machine.status ? `, ${l.machine.status}` : ""}${l.machine.observed_at ? `, seen ${relative(l.machine.observed_at, now)}` : ""}` : "none"],
      ["offer", l.offer ? `${l.offer.gpu} x${l.offer.gpu_count}, ${l.offer.region}${l.offer.spot ? ", spot" : ""}, ${hourly(l.hourly_usd)}` : null],
      ["cost", `${money(est.amount_usd)} so far (estimate, ${l.billing.status})${l.billing.actual_usd === null ? "" : `; actual ${money(l.billing.actual_usd)}`}`],
      ["ttl", l.state === "released" ? null : l.ttl_expires_at ? `ends ${relative(l.ttl_expires_at, now)} (${l.ttl_expires_at})` : "none"],
      ["lock", l.lock_until && Date.parse(l.lock_until) > now ? `ends ${relative(l.lock_until, now)}` : null],
      ["guard", guardText(l.guard, now)],
      ["released", l.released_at ? relative(l.released_at, now) : null],
      ["warnings", l.warnings.map((w) => w.message).join("; ")],
      ...(deployment ? [/** @type {[string, string]} */ (["deployment", deployment.name]), ...replicaFields(deployment)] : []),
    ]),
  );
}

/**
 * A quote's ceiling in words: its total and its basis, with the stopped disk, what a release at the
 * ttl may bill while it waits for the command's outputs, what replacing
 * failed hosts may add and the price drift a lease made from it may rent at, where they count; or
 * why there is none.
 * @param {Schemas["Quote"]} q
 */
function ceilingText(q) {
  if (q.ceiling_parts === null) return "none: no ttl or max_lifetime caps the cost";
  const { stopped_disk_usd: disk, outputs_wait_usd: wait = 0, retries_usd: retries, drift_usd: drift } = q.ceiling_parts;
  if (disk === null) return "none: a stopped machine's disk bills, and no stopped_ttl ends it";
  const parts = [
    disk > 0 ? `${money(disk)} of it stopped disk` : null,
    wait > 0 ? `${money(wait)} waiting for outputs` : null,
    retries > 0 ? `${money(retries)} replaced hosts` : null,
    drift > 0 ? `${money(drift)} price drift` : null,
  ].filter((p) => p !== null);
  return `${money(q.ceiling_usd)} (by ${q.ceiling_basis}${parts.map((p) => `; ${p}`).join("")})`;
}

/**
 * What the lease's guard will do, in words: `stop in 14 min (ttl_expired)`, `destroy now`, `nothing planned`.
 * @param {Schemas["GuardedLease"]["guard"]} guard
 * @param {number} now
 */
export function guardText(guard, now) {
  if (guard.action === "none") return "nothing planned";
  const when = guard.due ? "now" : guard.at ? relative(guard.at, now) : "when due";
  return `${guard.action} ${when}${guard.reason ? ` (${guard.reason})` : ""}`;
}

/** @param {Ctx} ctx @param {string[]} args @param {Record<string, any>} f */
export async function events(ctx, [ref], f = {}) {
  const id = await leaseIdOf(ctx, /** @type {string} */ (ref));
  if (f.follow) return followEvents(ctx, id);
  // Every page, following `next_after` (the route also streams; without `follow` it answers JSON).
  /** @typedef {Exclude<Awaited<ReturnType<typeof eventsPage>>, string>} EventsPage */
  const eventsPage = (/** @type {number} */ after) => call(ctx.api().GET("/v1/leases/{id}/events", { params: { path: { id }, query: { after: String(after) } } }));
  const first = /** @type {EventsPage} */ (await eventsPage(0));
  const doc = { ...first, data: [...first.data] };
  // `typeof` rather than `!== null`: an answer without the field ends the loop instead of asking forever.
  for (let next = first.next_after; typeof next === "number"; ) {
    const page = /** @type {EventsPage} */ (await eventsPage(next));
    doc.data.push(...page.data);
    doc.next_after = next = page.next_after;
  }
  const now = ctx.io.now();
  ctx.print(doc, () =>
    table(
      ["SEQ", "WHEN", "EVENT", "STATE", "REASON"],
      doc.data.map((e) => [String(e.seq), relative(e.at, now), ctx.shown(e.type), e.from || e.to ? `${e.from ?? "-"} -> ${e.to ?? "-"}` : "", ctx.shown(e.reason ?? "")]),
      { right: ["SEQ"] },
    ),
  );
}

/**
 * A lease's events as they happen, from its first, until it is released: one line each (with
 * `--json`, one event document per line).
 * @param {Ctx} ctx @param {string} id
 */
async function followEvents(ctx, id) {
  for await (const frame of follow(ctx.config(), ctx.io.version, `/v1/leases/${id}/events`)) {
    if (frame.event === "end") return;
    const e = /** @type {Schemas["LeaseEvent"]} */ (JSON.parse(frame.data));
    const line = [String(e.seq).padStart(4), e.at.slice(11, 19), e.type, e.from || e.to ? `${e.from ?? "-"} -> ${e.to ?? "-"}` : "", e.reason ?? ""];
    ctx.io.stdout.write(`${ctx.json ? jsonText(e) : ctx.shown(line.join("  ").trimEnd())}\n`);
  }
}

/**
 * One of the actions on a lease, then its state in one line.
 * @param {"end" | "stop" | "start" | "unlock" | "lock" | "extend"} action
 * @param {(f: Record<string, any>) => Record<string, string>} bodyOf
 */
function leaseAction(action, bodyOf = () => ({})) {
  /** @param {Ctx} ctx @param {string[]} args @param {Record<string, any>} f */
  return async (ctx, [ref], f) => {
    const id = await leaseIdOf(ctx, /** @type {string} */ (ref));
    const path = /** @type {`/v1/leases/{id}/${typeof action}`} */ (`/v1/leases/{id}/${action}`);
    const l = await call(ctx.api().POST(path, { params: { path: { id } }, body: /** @type {any} */ (bodyOf(f)) }));
    const now = ctx.io.now();
    const extra =
      action === "lock" && l.lock_until ? `, lock ends ${relative(l.lock_until, now)}` : action === "extend" && l.ttl_expires_at ? `, ttl ends ${relative(l.ttl_expires_at, now)}` : "";
    ctx.print(l, () => `${l.id}: ${stateText(l.state, ctx.paint)}${extra}`);
  };
}

export const end = leaseAction("end");
export const stop = leaseAction("stop");
export const start = leaseAction("start");
export const unlock = leaseAction("unlock");
export const lock = leaseAction("lock", (f) => ({ for: f.for }));
export const extend = leaseAction("extend", (f) => ({ by: f.by }));

// --- money ---------------------------------------------------------------------------------

/** @param {Ctx} ctx @param {string[]} _args @param {Record<string, any>} f */
export async function usage(ctx, _args, f) {
  const doc = await call(ctx.api().GET("/v1/usage", { params: { query: { group_by: f.by, from: f.from, to: f.to } } }));
  ctx.print(doc, () => {
    const head = `${doc.group_by} from ${doc.from} to ${doc.to}`;
    const rows = doc.data.map((r) => [r.key, money(r.estimate_usd), money(r.actual_usd), money(r.disputed_usd), String(r.leases)]);
    const t = doc.totals;
    rows.push(["total", money(t.estimate_usd), money(t.actual_usd), money(t.disputed_usd), String(t.leases)]);
    return `${head}\n${table([doc.group_by.toUpperCase(), "ESTIMATE", "ACTUAL", "DISPUTED", "LEASES"], rows, { right: ["ESTIMATE", "ACTUAL", "DISPUTED", "LEASES"] })}`;
  });
}

/** @param {Ctx} ctx @param {string[]} _args @param {Record<string, any>} f */
export async function receipts(ctx, _args, f) {
  const query = { status: f.status, lease_id: f.lease, limit: parseLimit("--limit", f.limit), cursor: f.cursor };
  const doc = await call(ctx.api().GET("/v1/receipts", { params: { query } }));
  const now = ctx.io.now();
  ctx.print(doc, () =>
    doc.data.length === 0
      ? "no receipts"
      : table(
          ["RECEIPT", "LEASE/VOLUME", "PROVIDER", "GPU", "STATUS", "ACTUAL", "ESTIMATE", "DIFFERENCE", "CREATED"],
          doc.data.map((r) => [
            r.id,
            // A volume's receipt bills its storage for one period (docs/billing.md "Volumes").
            r.lease_id ?? r.volume_id ?? "-",
            r.provider,
            r.gpu ?? "-",
            r.status,
            money(r.actual_usd),
            money(r.estimate_usd),
            money(r.difference_usd),
            relative(r.created_at, now),
          ]),
          { right: ["ACTUAL", "ESTIMATE", "DIFFERENCE"] },
        ),
  );
  morePages(ctx, doc.next_cursor, "receipts");
}

/** @param {Ctx} ctx @param {Schemas["Budget"]} b */
function printBudget(ctx, b) {
  const now = ctx.io.now();
  ctx.print(b, () =>
    fields([
      ["month", b.month],
      ["monthly cap", b.monthly_usd === null ? "none" : money(b.monthly_usd)],
      ["committed", `${money(b.month_committed_usd)} this month`],
      ["hourly cap", b.concurrent_hourly_usd === null ? "none" : hourly(b.concurrent_hourly_usd)],
      ["live rate", hourly(b.live_hourly_usd)],
      ["updated", b.updated_at ? relative(b.updated_at, now) : "never"],
    ]),
  );
}

/** @param {Ctx} ctx */
export async function budget(ctx) {
  printBudget(ctx, await call(ctx.api().GET("/v1/budget")));
}

/** A cap flag: dollars, or `none` to remove the cap. @param {string} flag @param {string | undefined} text */
export function parseCap(flag, text) {
  if (text === undefined) return undefined;
  return text === "none" ? null : parseUsd(flag, text);
}

/** @param {Ctx} ctx @param {string[]} _args @param {Record<string, any>} f */
export async function budgetSet(ctx, _args, f) {
  const monthly_usd = parseCap("--monthly", f.monthly);
  const concurrent_hourly_usd = parseCap("--concurrent-hourly", f.concurrentHourly);
  if (monthly_usd === undefined && concurrent_hourly_usd === undefined) throw usageError("budget set needs --monthly or --concurrent-hourly");
  const body = { ...(monthly_usd !== undefined ? { monthly_usd } : {}), ...(concurrent_hourly_usd !== undefined ? { concurrent_hourly_usd } : {}) };
  printBudget(ctx, await call(ctx.api().PUT("/v1/budget", { body })));
}

// --- admin ---------------------------------------------------------------------------------

/** @param {Ctx} ctx @param {string[]} _args @param {Record<string, any>} f */
export async function keysLs(ctx, _args, f) {
  const query = { limit: parseLimit("--limit", f.limit) ?? 200, cursor: f.cursor };
  const doc = await call(ctx.api().GET("/v1/keys", { params: { query } }));
  const now = ctx.io.now();
  ctx.print(doc, () =>
    table(
      ["KEY", "NAME", "SCOPE", "PREFIX", "CREATED", "REVOKED"],
      doc.data.map((k) => [k.id, k.name, k.scope, k.prefix, relative(k.created_at, now), k.revoked_at ? relative(k.revoked_at, now) : ""]),
    ),
  );
  morePages(ctx, doc.next_cursor, "keys ls");
}

/** @param {Ctx} ctx @param {string[]} args @param {Record<string, any>} f */
export async function keysCreate(ctx, [name], f) {
  const k = await call(ctx.api().POST("/v1/keys", { body: { name: /** @type {string} */ (name), scope: f.scope } }));
  if (!ctx.json) ctx.note("the secret is shown this once; store it now");
  ctx.print(k, () => fields([["key", k.id], ["name", k.name], ["scope", k.scope], ["secret", k.secret]]));
}

/** @param {Ctx} ctx @param {string[]} args */
export async function keysRevoke(ctx, [id]) {
  const k = await call(ctx.api().DELETE("/v1/keys/{id}", { params: { path: { id: /** @type {string} */ (id) } } }));
  ctx.print(k, () => `${k.id} (${k.name}) revoked`);
}

/** @param {Ctx} ctx @param {string[]} _args @param {Record<string, any>} f */
export async function volumesLs(ctx, _args, f) {
  const query = { limit: parseLimit("--limit", f.limit) ?? 200, cursor: f.cursor };
  const doc = await call(ctx.api().GET("/v1/volumes", { params: { query } }));
  const now = ctx.io.now();
  ctx.print(doc, () =>
    table(
      ["NAME", "VOLUME", "PROVIDER", "REGION", "SIZE", "STATE", "MONTHLY", "MOUNTED BY", "IDLE SINCE", "CREATED"],
      doc.data.map((v) => [
        v.name,
        v.id,
        v.provider,
        v.region,
        `${v.size_gb} GB`,
        v.state,
        v.monthly_usd === null ? "-" : `$${v.monthly_usd}`,
        v.mounted_by.join(", "),
        // The org's volume_idle_ttl counts from here (docs/volumes.md "Idle volumes").
        v.idle_since === null ? "-" : relative(v.idle_since, now),
        relative(v.created_at, now),
      ]),
    ),
  );
  morePages(ctx, doc.next_cursor, "volumes ls");
}

/** @param {Ctx} ctx @param {string[]} args @param {Record<string, any>} f */
export async function volumesCreate(ctx, [name], f) {
  const size = Number(f.size);
  if (!Number.isInteger(size) || size < 1) throw usageError(`--size: "${f.size}" is not a whole number of GB`);
  const body = { name: /** @type {string} */ (name), size_gb: size, ...(f.region ? { region: f.region } : {}), ...(f.provider ? { provider: f.provider } : {}) };
  const v = await call(ctx.api().POST("/v1/volumes", { body }));
  ctx.print(v, () => fields([["volume", v.id], ["name", v.name], ["provider", v.provider], ["region", v.region], ["size", `${v.size_gb} GB`], ["state", v.state], ["monthly", v.monthly_usd === null ? "-" : `$${v.monthly_usd}`]]));
}

/** A volume's id from its id or name (`vol_...` is taken as an id). @param {Ctx} ctx @param {string} ref */
async function volumeIdOf(ctx, ref) {
  if (/^vol_[0-9a-z]+$/.test(ref)) return ref;
  /** @type {string | undefined} */
  let cursor;
  do {
    const doc = await call(ctx.api().GET("/v1/volumes", { params: { query: { limit: 200, ...(cursor ? { cursor } : {}) } } }));
    const found = doc.data.find((v) => v.name === ref);
    if (found) return found.id;
    cursor = doc.next_cursor ?? undefined;
  } while (cursor);
  throw new CliError(`no volume is named ${ref}`, EXIT.NOT_FOUND, { code: "not_found", details: { name: ref } });
}

/** @param {Ctx} ctx @param {string[]} args */
export async function volumesRm(ctx, [ref]) {
  const id = await volumeIdOf(ctx, /** @type {string} */ (ref));
  const v = await call(ctx.api().DELETE("/v1/volumes/{id}", { params: { path: { id } } }));
  ctx.print(v, () => `${v.name} (${v.id}) deleted`);
}

/** @param {Schemas["Provider"]} p @param {number} now */
function verificationText(p, now) {
  const v = p.verification;
  if (!p.needs_key) return "no key needed";
  if (v.status === "never") return p.configured ? "never verified" : "-";
  return `${v.status}${v.at ? ` ${relative(v.at, now)}` : ""}${v.error ? `: ${v.error}` : ""}`;
}

/** @param {Ctx} ctx */
export async function providersLs(ctx) {
  const doc = await call(ctx.api().GET("/v1/providers"));
  const now = ctx.io.now();
  ctx.print(doc, () =>
    table(
      ["PROVIDER", "KEY", "USABLE", "VERIFIED", "MARKET READ"],
      doc.data.map((p) => [
        p.name,
        !p.needs_key ? "not needed" : p.configured ? "stored" : "none",
        p.usable ? "yes" : "no",
        verificationText(p, now),
        p.market.refreshed_at === null ? "never" : `${relative(p.market.refreshed_at, now)}${p.market.stale ? " (stale)" : ""}`,
      ]),
    ),
  );
}

/** @param {Ctx} ctx @param {Schemas["Provider"]} p @param {string} what */
function printProvider(ctx, p, what) {
  ctx.print(p, () => `${p.name}: ${what}; verification ${verificationText(p, ctx.io.now())}`);
}

/** @param {Ctx} ctx @param {string[]} args @param {Record<string, any>} f */
export async function providersSet(ctx, [name], f) {
  const options = parsePairs("--option", f.option);
  const api = ctx.api();
  const apiKey = await readSecret(ctx.io, `${name} API key (not echoed): `);
  if (!apiKey) throw usageError(`no ${name} API key was given on the prompt or stdin`);
  const body = { api_key: apiKey, ...(Object.keys(options).length ? { options } : {}) };
  const p = await call(api.PUT("/v1/providers/{name}", { params: { path: { name: /** @type {string} */ (name) } }, body }));
  printProvider(ctx, p, "key stored");
}

/** @param {Ctx} ctx @param {string[]} args */
export async function providersVerify(ctx, [name]) {
  const p = await call(ctx.api().POST("/v1/providers/{name}/verify", { params: { path: { name: /** @type {string} */ (name) } } }));
  printProvider(ctx, p, "verified");
}

/** @param {Ctx} ctx @param {string[]} args */
export async function providersRm(ctx, [name]) {
  const p = await call(ctx.api().DELETE("/v1/providers/{name}", { params: { path: { name: /** @type {string} */ (name) } } }));
  printProvider(ctx, p, "key forgotten");
}
