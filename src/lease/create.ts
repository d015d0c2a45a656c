/**
 * `POST /v1/leases` behind the edge: the offers a lease may run on (for a spec, or the quote's,
 * checked again when used; only on providers with what the lease needs), its policy, its name,
 * its budget admission, its GPU quota (which may displace scratch leases for a deployment, src/lease/quota.ts),
 * then its object. A lease the budget or the quota refuses rents nothing: admission runs before the
 * lease's object exists (docs/design.md).
 */
import { reservedHourlyUsd } from "../billing/bandwidth";
import { admissionReservation, dropReservation, reserveBudget } from "../billing/budget";
import { stoppedDiskMicros } from "../billing/ceiling";
import { capabilitiesNeeded, providersForSpec, providersWithCapabilities } from "../catalog/eligible-providers";
import type { Offer } from "../catalog/offer";
import { badHostKey, badHostsOf, type BadHosts } from "../catalog/bad-hosts";
import { chooseOffers, noCapacity, placementFor } from "../catalog/quote";
import { BAD_HOSTS } from "../catalog/selector";
import { offersOfQuote } from "../catalog/quoted-offers";
import { orgQuotes } from "../catalog/quote-store";
import type { Spec } from "../catalog/spec";
import type { Db } from "../db";
import { creationCaps } from "../db/creation-caps";
import type { Env } from "../env";
import { z } from "@hono/zod-openapi";
import { ApiError, badRequest, conflict } from "../errors";
import { newId } from "../ids";
import { dropHold, holdUpload } from "../artifacts/store";
import { ENV_NAME } from "../providers/agent-start";
import { providerCapabilities } from "../providers/registry";
import { claimLeaseName, freeLeaseName } from "./names";
import { machineActivityMaxMs, orgSettings, type OrgSettings } from "../orgs/settings";
import { configWarnings, isPinnedImage, type ConfigWarning } from "./config-check";
import { dropGpuHold, holdGpus, restoreGpuHolds } from "./quota-repo";
import { failureOf } from "./retry";
import { offerRetriesMicros, priced, QUOTE_DRIFT_TOLERANCE } from "./rent";
import { gpusOf } from "./quota";
import { outputsWaitMs, resolvePolicy, type LeaseKind, type Policy, type PolicyInput } from "./policy";
import type { ServedModel } from "./state";
import type { LeaseView } from "./view";
import { boundToVolumes, mountVolumes, resolveMounts, unmountVolumes, withVolumesNamed, type LeaseVolume, type MountRequest } from "../volumes/volumes";

/** A lease's environment: at most this many variables, each value at most ENV_VALUE_MAX_BYTES. */
export const ENV_MAX_NAMES = 64;
export const ENV_VALUE_MAX_BYTES = 4096;

/**
 * The command's environment in a request: shell names, none of lessor's own (`LESSOR_*`, which the
 * agent needs and which win on the machine anyway), values up to 4 KiB. Answers show the names only.
 */
export const LeaseEnvSchema = z
  .record(
    z.string().regex(ENV_NAME, { error: "not a shell variable name" }).refine((n) => !n.startsWith("LESSOR_"), { error: "names starting with LESSOR_ are lessor's own" }),
    z.string().refine((v) => new TextEncoder().encode(v).byteLength <= ENV_VALUE_MAX_BYTES, { error: `a value is at most ${ENV_VALUE_MAX_BYTES} bytes` }),
  )
  .refine((env) => Object.keys(env).length <= ENV_MAX_NAMES, { error: `at most ${ENV_MAX_NAMES} variables` })
  .openapi("LeaseEnv", { description: "the command's environment; values may be secrets and are never shown (answers list the names)" });

interface LeaseRequestCommon {
  kind: LeaseKind;
  policy?: PolicyInput;
  image?: string;
  cmd?: string;
  env?: Record<string, string>;
  /** Unique among the org's live leases (src/lease/names.ts). */
  name?: string;
  /** A deployment's model server (src/deployments/): the lease runs it instead of a `cmd`. */
  model?: ServedModel;
  /** The lease's id, when its caller chose it first (a deployment points at it before it exists). */
  id?: string;
  /** Job and scratch: a bundle (`upl_...`) the agent unpacks before the command (docs/artifacts.md). */
  workdir?: string;
  /** The org's volumes it mounts (src/volumes/volumes.ts): it is placed where they live. */
  volumes?: MountRequest[];
}

/** Exactly one of `spec` and `quote_id`: a lease for a spec, or for the offers a quote answered. */
export type LeaseRequest = LeaseRequestCommon & ({ spec: Spec } | { quote_id: string });

/** What a lease request resolves to before anything is rented. */
interface LeasePlan {
  offers: Offer[];
  spec: Spec | null;
  policy: Policy;
  warnings: ConfigWarning[];
  /** The org's settings, where the request needed them (`settingsFor`). */
  settings: OrgSettings | null;
  volumes: LeaseVolume[];
  /** Where the quote it was made from is kept (`readQuote`); null: made from a spec. */
  quoteHeld: "object" | "d1" | null;
}

/**
 * A quote's offers less those on hosts that have failed one of the org's leases since it was
 * answered (docs/design.md "Placement"); 409 `no_capacity` when that leaves none.
 */
function withoutBadHosts(offers: Offer[], badHosts: BadHosts): Offer[] {
  const kept = offers.filter((o) => !badHosts.has(badHostKey(o.provider, o.host_id)));
  if (kept.length > 0 || offers.length === 0) return kept;
  throw noCapacity({ ok: false, constraint: BAD_HOSTS, candidates_before: offers.length }, offers, []);
}

/**
 * The org's settings when the request needs them (src/orgs/settings.ts), read once: for an image
 * not pinned by digest (the org may require pins), and for a deployment (its machine's word is
 * believed only within the org's `machine_activity_max`). null: not needed.
 */
async function settingsFor(db: Db, orgId: string, req: Pick<LeaseRequest, "image" | "model">): Promise<OrgSettings | null> {
  const unpinned = req.image !== undefined && !isPinnedImage(req.image);
  return unpinned || req.model ? orgSettings(db, orgId) : null;
}

/**
 * Refuses an image that is not pinned by digest when the org's settings require pins. A lease
 * that names none runs its provider's default image, which is pinned
 * (src/providers/registry.ts `defaultImageOf`), or none at all (the sim, Lambda's VMs).
 */
function requirePinnedImage(settings: OrgSettings | null, image: string | undefined): void {
  if (image === undefined || isPinnedImage(image) || !settings?.require_image_digest) return;
  throw conflict(
    "image_not_pinned",
    `this org requires images pinned by digest (require_image_digest); "${image}" is not: name it as name@sha256:<64 hex digits>`,
    { field: "image" },
  );
}

/**
 * A request's offers, spec, policy and configuration warnings, read and never rented: the part of
 * `POST /v1/leases` that `POST /v1/leases/validate` answers. It refuses what a create refuses
 * before its budget admission.
 */
async function planLease(db: Db, env: Env, orgId: string, req: LeaseRequest, now: number): Promise<LeasePlan> {
  if (req.kind === "job" && req.cmd === undefined) throw badRequest("cmd_required", "a job needs a `cmd`: the command it runs", { field: "cmd" });
  if (req.kind === "deployment" && req.workdir !== undefined) throw badRequest("invalid_request", "a deployment takes no workdir", { field: "workdir" });
  const [settings, volumes] = await Promise.all([settingsFor(db, orgId, req), resolveMounts(db, orgId, req.volumes ?? [])]);
  requirePinnedImage(settings, req.image);
  let offers: Offer[];
  let policyInput = req.policy ?? {};
  // Where the lease may run, also when it comes from a quote: a machine placed elsewhere is replaced (src/lease/placement.ts).
  let spec: Spec | null;
  let quoteHeld: LeasePlan["quoteHeld"] = null;
  // A lease with a cmd runs only where lessor's agent can start (capability_missing otherwise).
  const needed = capabilitiesNeeded(req);
  if ("quote_id" in req) {
    const [used, badHosts] = await Promise.all([offersOfQuote(env, db, orgId, req.quote_id, now), badHostsOf(db, orgId, now)]);
    const able = providersWithCapabilities([...new Set(used.offers.map((o) => o.provider))], needed, providerCapabilities);
    spec = boundToVolumes(used.quote.spec, volumes);
    // Only the quote's offers where the volumes live (the spec bound to them says where).
    const there = used.offers.filter((o) => volumes.length === 0 || (o.provider === spec!.providers![0] && o.region.toLowerCase() === spec!.regions![0]));
    if (there.length === 0) throw withVolumesNamed(noCapacity({ ok: false, constraint: "regions", candidates_before: used.offers.length }, used.offers, []), volumes);
    offers = withoutBadHosts(there.filter((o) => able.includes(o.provider)), badHosts);
    policyInput = { ttl: used.quote.policy.ttl, max_lifetime: used.quote.policy.max_lifetime, ...policyInput };
    quoteHeld = used.held;
  } else {
    // A lease that mounts volumes runs only where they live (src/volumes/volumes.ts).
    const bound = boundToVolumes(req.spec, volumes);
    spec = bound;
    const [usable, badHosts] = await Promise.all([providersForSpec(env, db, orgId, bound, { fresh: true }), badHostsOf(db, orgId, now)]);
    // Judged first among the providers the spec names, so that naming only incapable ones says so.
    const named = bound.providers?.map((p) => p.toLowerCase());
    if (named) providersWithCapabilities(usable.filter((p) => named.includes(p)), needed, providerCapabilities);
    const providers = providersWithCapabilities(usable, needed, providerCapabilities);
    const resolved = resolvePolicy(req.kind, policyInput);
    const placement = placementFor(resolved, req.image ?? null);
    // A spot job that may fall back to on-demand (docs/leases.md "Recovery") holds the on-demand
    // offers after its spot ones: a restart, or a spot create refused for capacity, moves on to them.
    const fallback = bound.spot === true && resolved.recovery?.fallback_on_demand === true;
    const spot = await chooseOffers(db, bound, providers, now, { placement, badHosts }).catch((e: unknown) => {
      if (fallback) return null;
      throw withVolumesNamed(e, volumes);
    });
    const onDemand = fallback
      ? await chooseOffers(db, { ...bound, spot: false }, providers, now, { placement, badHosts }).catch((e: unknown) => {
          if (spot) return null;
          throw withVolumesNamed(e, volumes);
        })
      : null;
    offers = [spot, onDemand].flatMap((s) => (s ? [s.chosen, ...s.fallbacks] : []));
  }
  const policy = resolvePolicy(req.kind, policyInput);
  const providers = [...new Set(offers.map((o) => o.provider))].map((name) => ({ name, capabilities: providerCapabilities(name) }));
  return { offers, spec, policy, settings, volumes, quoteHeld, warnings: configWarnings({ policy, image: req.image ?? null, providers }) };
}

/** `POST /v1/leases/validate`: the warnings a create with this body would carry; nothing is rented. */
export async function validateLease(db: Db, env: Env, orgId: string, req: LeaseRequest, now: number): Promise<ConfigWarning[]> {
  return (await planLease(db, env, orgId, req, now)).warnings;
}

export async function createLease(db: Db, env: Env, orgId: string, req: LeaseRequest, now: number): Promise<LeaseView> {
  const { offers, spec, policy, warnings, settings, volumes, quoteHeld } = await planLease(db, env, orgId, req, now);
  const id = req.id ?? newId("ls", now);
  const stub = env.LEASE.get(env.LEASE.idFromName(id));
  // The name first: of two creates with one name, the loser reserves nothing (src/lease/names.ts).
  const claim = req.name === undefined ? null : { org_id: orgId, name: req.name, lease_id: id };
  if (claim) await claimLeaseName(db, claim, now);
  let reservedBudget = false;
  let held = false;
  // A quote in the org's object is kept as long as the lease made from it (src/catalog/quote-store.ts);
  // one in D1 is kept by the lease's `quote_id` (src/db/retention.ts).
  const keptQuote = "quote_id" in req && quoteHeld === "object" ? req.quote_id : null;
  let kept = false;
  try {
    if (keptQuote !== null) kept = await orgQuotes(env, orgId).keepQuote(keptQuote, id);
    // The bundle first among the holds: a missing one refuses the lease before any reservation.
    if (req.workdir !== undefined) {
      await holdUpload(env, orgId, req.workdir, id, now);
      held = true;
    }
    // Mounted before anything is reserved: a volume being deleted refuses the lease (volume_busy).
    await mountVolumes(env.DB, db, id, volumes, now);
    // Budget admission, before the lease's object exists: a refused lease rents nothing. A quote's
    // offer counts at the most it may be rented for, its price drift included (rent.ts `priced`).
    const first = priced(offers[0]!, "quote_id" in req ? QUOTE_DRIFT_TOLERANCE : 0);
    const reserved = admissionReservation(reservedHourlyUsd(first), policy, now, stoppedDiskMicros(first.stopped_hourly_usd, policy.stopped_ttl), offerRetriesMicros(first, policy), outputsWaitMs(req.kind, policy));
    await reserveBudget(env.DB, db, { lease_id: id, org_id: orgId, need: reserved }, now, creationCaps(env).leases);
    reservedBudget = true;
    // The GPU quota last: what it displaces is released only for a lease every other cap admitted.
    const gpus = gpusOf(offers);
    const displaced = await holdGpus(env.DB, db, { lease_id: id, org_id: orgId, ask: { kind: req.kind, gpus } }, now);
    const untold = (await Promise.all(displaced.map(async (h) => ((await preempt(env, orgId, h.lease_id, id)) ? null : h.lease_id)))).filter((x) => x !== null);
    if (untold.length > 0) {
      // A displaced lease that was not told goes on running: it holds its GPUs again, and this
      // lease, which no longer fits beside it, is not made (its own hold is given back below).
      await restoreGpuHolds(db, untold, id);
      throw new ApiError(503, "preemption_failed", `${untold.length} scratch lease(s) this deployment displaces could not be told to release; nothing was rented: try again`, { leases: untold }, { "retry-after": "5" }, true);
    }
    return await stub.create({
      id,
      org_id: orgId,
      kind: req.kind,
      policy,
      spec,
      quote_id: "quote_id" in req ? req.quote_id : null,
      offers,
      image: req.image ?? null,
      cmd: req.cmd ?? null,
      env: req.env ?? null,
      name: req.name ?? null,
      model: req.model ?? null,
      machine_activity_max: req.model && settings ? machineActivityMaxMs(settings) : null,
      warnings,
      reserved,
      held_gpus: gpus,
      ...(volumes.length > 0 ? { volumes } : {}),
      now,
    });
  } catch (e) {
    // A lease never made gives back its name, budget and GPUs; one that may exist keeps them, so nothing is held twice.
    if ((claim || reservedBudget || held || kept || volumes.length > 0) && (await stub.view(orgId).then((made) => made === null, () => false))) {
      await Promise.all([
        claim && freeLeaseName(db, claim),
        reservedBudget && dropReservation(db, id),
        dropGpuHold(db, id),
        held && dropHold(env, id),
        volumes.length > 0 && unmountVolumes(db, id),
        kept && keptQuote !== null && orgQuotes(env, orgId).releaseQuote(keptQuote, id),
      ]);
    }
    throw e;
  }
}

/**
 * Tells a displaced lease's object to release it (reason `preempted`, by lease `by`): whether it
 * was told. A failed call is logged; the caller gives the lease its hold back (it runs on under its
 * own rules, and is counted).
 */
async function preempt(env: Env, orgId: string, leaseId: string, by: string): Promise<boolean> {
  try {
    await env.LEASE.get(env.LEASE.idFromName(leaseId)).preempt(orgId, by);
    return true;
  } catch (e) {
    console.error(JSON.stringify({ msg: "preempted lease not told; it holds its GPUs again", lease: leaseId, by, error: failureOf(e).text }));
    return false;
  }
}
