import type { ApiKeyObject } from "./auth/key-object";
import type { RateLimiter } from "./auth/rate-limiter";
import type { OrgEventsObject } from "./events/org-object";
import type { LeaseObject } from "./lease/object";
import type { DeploymentObject } from "./deployments/object";
import type { SimCloud } from "./providers/sim/cloud";
import type { WebhookMessage } from "./webhooks/deliveries";

/** The Worker's bindings and settings (wrangler.toml, `.dev.vars`, secrets). */
export interface Env {
  DB: D1Database;
  LEASE: DurableObjectNamespace<LeaseObject>;
  /** One per deployment, named by its id: its replicas, their in-flight requests and its scaler (src/deployments/object.ts). */
  DEPLOYMENT: DurableObjectNamespace<DeploymentObject>;
  SIM: DurableObjectNamespace<SimCloud>;
  LIMITER: DurableObjectNamespace<RateLimiter>;
  API_KEY: DurableObjectNamespace<ApiKeyObject>;
  /** One per org, named by its id: the org's event log, its streams and its webhook deliveries. */
  ORG_EVENTS: DurableObjectNamespace<OrgEventsObject>;
  /**
   * The webhook queue (`lessor-webhooks`): the org's objects hand it each delivery, and its consumer
   * (functions/index.ts `queue`, src/webhooks/consumer.ts) sends them; `lessor-webhooks-dlq` takes
   * what it gave up on.
   */
  WEBHOOKS: Queue<WebhookMessage>;
  /** Workdir bundles and artifacts (docs/artifacts.md), bucket `lessor-artifacts`. */
  ARTIFACTS: R2Bucket;
  /** "production" in `[env.production]` (wrangler.toml): turns on the production checks of src/config.ts. */
  LESSOR_ENVIRONMENT?: string;
  /** Secret (at least 32 characters): creates orgs. Unset: `POST /v1/orgs` is refused. */
  LESSOR_BOOTSTRAP_TOKEN?: string;
  /** Comma-separated provider names this installation rents from (sim, runpod, vast, lambda). */
  LESSOR_PROVIDERS?: string;
  /** Secret (at least 32 characters): the key orgs' provider keys are encrypted under. */
  LESSOR_MASTER_KEY?: string;
  /** Where each provider's API is reached; set only to point lessor at a stand-in (tests, staging). */
  LESSOR_RUNPOD_BASE_URL?: string;
  LESSOR_VAST_BASE_URL?: string;
  LESSOR_LAMBDA_BASE_URL?: string;
  /** Requests a minute for one API key or JWT subject (default 600). */
  LESSOR_RATE_LIMIT_PER_MINUTE?: string;
  /** Requests a minute for one org, all its credentials together (default 6000). */
  LESSOR_ORG_RATE_LIMIT_PER_MINUTE?: string;
  /** Failed authentications a minute from one client address (default 60), then 429. */
  LESSOR_AUTH_FAILURES_PER_MINUTE?: string;
  /** Quotes one org may make in 24 hours (default 10000), then 429 (src/db/creation-caps.ts). */
  LESSOR_QUOTES_PER_DAY?: string;
  /** Leases one org may create in 24 hours (default 5000), then 429 (src/db/creation-caps.ts). */
  LESSOR_LEASES_PER_DAY?: string;
  /** Webhook event ids one provider account may record in 24 hours (default 10000), then 429. */
  LESSOR_INGRESS_EVENTS_PER_DAY?: string;
  /** Open event streams and log follows per API key or JWT subject (default 20), then 429 (src/auth/stream-slots.ts). */
  LESSOR_STREAMS_PER_CREDENTIAL?: string;
  /** Open event streams and log follows per org, all its credentials together (default 100). */
  LESSOR_STREAMS_PER_ORG?: string;
  /** Open agent long polls per org, all its leases together (default 1000). */
  LESSOR_AGENT_POLLS_PER_ORG?: string;
  /** Agent calls a minute per lease token (default 600), as a token bucket (src/occupant/agent-budget.ts). */
  LESSOR_AGENT_RATE_LIMIT_PER_MINUTE?: string;
  /** Log bytes a minute per lease token (default 8 MiB; at least a chunk's 1 MiB). */
  LESSOR_AGENT_LOG_BYTES_PER_MINUTE?: string;
  /**
   * Where machines reach lessor: an http(s) origin (https in production, where it is required).
   * Their agent fetches `/v1/agent/agent.sh` from it and reports there. `npm start` sets it to the
   * local URL; unset elsewhere in development, machines are started without the agent.
   */
  LESSOR_PUBLIC_URL?: string;
  /** How long the gateway holds a request to a deployment that is starting (a duration; default 30s). */
  LESSOR_GATEWAY_WAKE_WAIT?: string;
  /** Requests a minute through one deployment's gateway, all its callers together (default 600). */
  LESSOR_GATEWAY_RATE_LIMIT_PER_MINUTE?: string;
  /**
   * Secret (at least 32 characters): the ingress token of the installation's own provider account,
   * the sim's: the last path segment of `POST /v1/ingress/sim/:token` (docs/ingress.md). Unset:
   * the sim's ingress answers 404 and the sim sends no webhooks. The sim signs them with a key
   * derived from it (src/ingress/sim-key.ts). An org's own accounts have tokens of their own.
   */
  LESSOR_INGRESS_TOKEN?: string;
  /**
   * Secret: the signing secret(s) Vast showed when its notification webhook was created, separated
   * by commas (one per Vast account, or two during a rotation). Unset: Vast's webhooks answer 401.
   */
  LESSOR_VAST_WEBHOOK_SECRET?: string;
  /** Tags this installation's machine labels (src/lease/label.ts); its own value in production. */
  LESSOR_INSTALLATION_ID?: string;
  LESSOR_SIM_OFFERS?: string;
  /**
   * Development only: "1" lets webhook endpoints be loopback addresses, over http too, so a receiver
   * on the same machine works. `npm start` sets it; refused in production (src/config.ts).
   */
  LESSOR_WEBHOOKS_ALLOW_LOOPBACK_HTTP?: string;
  /**
   * Where the names of webhook and JWKS URLs are looked up before each request: a DNS-over-HTTPS
   * JSON resolver's https URL (default Cloudflare's, https://cloudflare-dns.com/dns-query), or
   * `off` (src/outbound/dns.ts).
   */
  LESSOR_DNS_RESOLVER?: string;
  /** Ports webhook and JWKS URLs may name beside 443, comma-separated (default none). */
  LESSOR_OUTBOUND_PORTS?: string;
  /** Webhook deliveries one org hands to the webhook queue a minute, all its endpoints together (default 600); the rest wait. */
  LESSOR_WEBHOOK_DELIVERIES_PER_MINUTE?: string;
  /** The most endpoints one event is delivered to (default 5), the oldest that take it. */
  LESSOR_WEBHOOK_FANOUT?: string;
  /** Development only: "1" keeps lease objects from setting alarms, so only the cron backstop reaps. */
  LESSOR_DEV_DISABLE_ALARMS?: string;
  /** Seconds a labelled machine without a live lease may live before it is stopped (default 300). */
  LESSOR_ORPHAN_GRACE_S?: string;
  /** The longest an exec request waits for its result, in ms (default 600000; the tests lower it). */
  LESSOR_EXEC_MAX_WAIT_MS?: string;
  /** Seconds a stopped orphan is kept before it is destroyed (default 86400). */
  LESSOR_ORPHAN_STOPPED_TTL_S?: string;
  /**
   * How long a host that failed one of an org's leases is left out of the org's selections: a
   * duration (`24h`, the default; `90m`), or `0` to remember none (src/lease/bad-host.ts).
   */
  LESSOR_BAD_HOST_TTL?: string;
  /** The caps of docs/artifacts.md "Limits and money", in bytes (src/artifacts/limits.ts). */
  LESSOR_UPLOAD_MAX_BYTES?: string;
  LESSOR_ARTIFACT_FILE_MAX_BYTES?: string;
  LESSOR_LEASE_ARTIFACTS_MAX_BYTES?: string;
  LESSOR_ORG_STORAGE_MAX_BYTES?: string;
}

export function intSetting(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}
