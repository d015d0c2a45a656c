/** Kysely's view of the D1 index (migrations/). Layout and meaning: docs/storage.md. */
import type { Generated, Insertable, Selectable } from "kysely";
import type { Offer, OfferOptionalField, OfferSharedField } from "../catalog/offer";

export interface OrgsTable {
  id: string;
  name: string;
  created_at: number;
  /** 1: a lease's image must be pinned by digest (src/orgs/settings.ts). */
  require_image_digest: Generated<0 | 1>;
  /** How long what a deployment's machine reports may keep a lease in use, per session, ms; null: the default (src/orgs/settings.ts). */
  machine_activity_max_ms: Generated<number | null>;
  /** How long a released lease's artifacts are kept, ms; null: the default, 30 days (src/orgs/settings.ts, migrations/0027). */
  artifact_retention_ms: Generated<number | null>;
  /** How long a volume may go unmounted before it is reported (or deleted), ms; null: never (migrations/0029). */
  volume_idle_ttl_ms: Generated<number | null>;
  /** What becomes of a volume idle for volume_idle_ttl (migrations/0029). */
  volume_idle_action: Generated<"report" | "delete">;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  name: string;
  prefix: string;
  hash: string;
  scope: "read" | "write" | "admin";
  created_at: number;
  revoked_at: number | null;
}

export interface IssuersTable {
  id: string;
  org_id: string;
  jwks_url: string;
  iss: string;
  aud: string;
  created_at: number;
}

/** Registrations removed by migration 0006 because an earlier one held their (iss, aud). */
export interface IssuersDisplacedTable extends IssuersTable {
  kept_id: string;
  displaced_at: number;
}

/**
 * The offer cache (src/catalog/offers-repo.ts): an offer's shared fields as they are, its class and
 * spot flag in SQL's forms, when its market was read, and each optional fact as a nullable column
 * (null: not stated; migrations/0012, 0017, 0021, 0022). Built from the field lists in
 * src/catalog/offer.ts, so a field is written out once.
 */
export type OffersTable = Pick<Offer, OfferSharedField> & {
  gpu_class: string;
  spot: number;
  refreshed_at: number;
} & { [K in OfferOptionalField]: number | null };

/** One row (id 1): the offer cache's generation, rewritten by every refresh (migrations/0005). */
export interface CatalogTable {
  id: number;
  generation: string;
}

/** A host that failed one of an org's leases, left out of the org's selections until `until` (migrations/0016). */
export interface BadHostsTable {
  org_id: string;
  provider: string;
  host_id: string;
  reason: "boot_timeout" | "host_failed" | "provider_lost";
  lease_id: string;
  until: number;
  created_at: number;
}

export interface QuotesTable {
  id: string;
  org_id: string;
  body: string;
  created_at: number;
  expires_at: number;
  /** 1: a lease refers to it, so retention keeps it (migrations/0007). */
  kept: Generated<0 | 1>;
}

/** When the catalog refresh last read each provider's market (migrations/0007). */
export interface OfferMarketsTable {
  provider: string;
  /** The last successful read; null: never. */
  refreshed_at: number | null;
  attempted_at: number;
  /** Why the last attempt failed (an error kind, never a provider's words); null when it worked. */
  error: string | null;
}

export interface LeasesTable {
  id: string;
  org_id: string;
  kind: "deployment" | "scratch" | "job";
  state: string;
  provider: string;
  machine_id: string | null;
  release_reason: string | null;
  next_deadline: number | null;
  created_at: number;
  updated_at: number;
  version: number;
  body: string;
  /** Billing (migrations/0004_billing.sql); money in micro-dollars. */
  billing_status: Generated<"accruing" | "awaiting_windows" | "settled" | "disputed" | "none">;
  estimate_micro_usd: Generated<number>;
  accrual: Generated<string>;
  billed_from: number | null;
  released_at: number | null;
  gpu_class: string | null;
  /** The quote the lease was created from (migrations/0007); never changes. */
  quote_id: string | null;
  /** The name the lease was created with (migrations/0013); never changes. */
  name: string | null;
}

/** Who holds each of an org's lease names while the lease is live (migrations/0013). */
export interface LeaseNamesTable {
  org_id: string;
  name: string;
  lease_id: string;
  created_at: number;
}

export interface IdempotencyTable {
  org_id: string;
  route: string;
  key: string;
  body_hash: string;
  status: number | null;
  response: string | null;
  created_at: number;
}

export interface OrphansTable {
  provider: string;
  machine_id: string;
  label: string;
  first_seen_at: number;
  stopped_at: number | null;
  /** The provider account it was found in: '' for an installation-wide one (the sim), else the org. */
  account: Generated<string>;
}

export interface ProviderKeysTable {
  org_id: string;
  provider: string;
  /** AES-GCM ciphertext of the key (src/providers/credentials.ts); never the key itself. */
  ciphertext: string;
  /** JSON of the provider's settings that are not secret. */
  options: Generated<string>;
  created_at: number;
  updated_at: number;
  verified_at: number | null;
  verified_ok: 0 | 1 | null;
  verify_error: string | null;
  /** Hex SHA-256 of the account's ingress token (migration 0025); null: it takes no webhooks. */
  ingress_token_hash: Generated<string | null>;
  ingress_token_created_at: Generated<number | null>;
}

/** A model served under a name (migrations/0019); one row per (org, name). */
export interface DeploymentsTable {
  id: string;
  org_id: string;
  name: string;
  model: string;
  /** JSON of the PUT's body (src/deployments/config.ts). */
  config: string;
  fingerprint: string;
  /** AES-GCM ciphertext of the deployment's api_key; never the key. */
  api_key: string;
  lease_id: string;
  created_at: number;
  updated_at: number;
}

/** Storage that outlives a lease (migrations/0028, docs/volumes.md); one row per (org, name). */
export interface VolumesTable {
  id: string;
  org_id: string;
  name: string;
  provider: string;
  region: string;
  size_gb: number;
  label: string;
  provider_volume_id: string | null;
  state: "creating" | "ready" | "deleting";
  gb_month_micro_usd: number | null;
  created_at: number;
  updated_at: number;
}

/** What a volume bills, from its creation to its deletion; outlives its `volumes` row (migrations/0029). */
export interface VolumeBillsTable {
  volume_id: string;
  org_id: string;
  name: string;
  provider: string;
  provider_volume_id: string | null;
  size_gb: number;
  gb_month_micro_usd: number | null;
  billed_from: number;
  deleted_at: number | null;
  settled_through: number;
}

/** A lease that mounts a volume (migrations/0028). */
export interface VolumeMountsTable {
  volume_id: string;
  lease_id: string;
  path: string;
  created_at: number;
}

export interface SweepLocksTable {
  name: string;
  holder: string;
  until: number;
}

/** Provider webhook event ids already taken in (migrations/0015), kept 24 h (src/db/retention.ts). */
export interface IngressEventsTable {
  /** The provider account the delivery came in under: '' the installation's own (the sim's), else the org's id (migration 0025). */
  account: string;
  provider: string;
  event_id: string;
  received_at: number;
}

export interface LeaseMachinesTable {
  provider: string;
  machine_id: string;
  lease_id: string;
  org_id: string;
  created_at: number;
}

export interface BillingRecordsTable {
  provider: string;
  record_id: string;
  account: Generated<string>;
  machine_id: string;
  window_start: number;
  window_end: number;
  amount_micro_usd: number;
  components: string;
  lease_id: string | null;
  org_id: string | null;
  fetched_at: number;
  /** What the record bills: a machine (machine_id, lease_id) or a volume (machine_id holds the provider's volume id; volume_id). */
  resource: Generated<"machine" | "volume">;
  volume_id: Generated<string | null>;
}

export interface BillingCursorsTable {
  provider: string;
  account: string;
  complete_through: number;
  fetched_at: number;
}

export interface ReceiptsTable {
  id: string;
  org_id: string;
  /** A lease's receipt, or (volume_id) a volume's for one period (migrations/0029). */
  lease_id: string | null;
  volume_id: string | null;
  provider: string;
  gpu_class: string | null;
  status: "settled" | "disputed";
  actual_micro_usd: number;
  /** null only for a volume whose provider states no price. */
  estimate_micro_usd: number | null;
  components: string;
  windows: string;
  billed_from: number | null;
  released_at: number;
  created_at: number;
}

export interface BudgetsTable {
  org_id: string;
  monthly_micro_usd: number | null;
  concurrent_hourly_micro_usd: number | null;
  updated_at: number;
}

/** One row per (lease, UTC month) of the lease's worst case (migration 0008; src/billing/budget.ts). */
export interface BudgetReservationsTable {
  lease_id: string;
  org_id: string;
  /** 'YYYY-MM' the amount would accrue in. */
  month: string;
  /** The lease's worst case in the month; null: no ceiling; once released, what it accrued there. */
  ceiling_micro_usd: number | null;
  hourly_micro_usd: number;
  created_at: number;
}

/** An org's GPU quota (migration 0020; src/lease/quota-repo.ts). */
export interface GpuQuotasTable {
  org_id: string;
  gpus: number;
  deployment_gpus: number | null;
  job_gpus: number | null;
  scratch_gpus: number | null;
  updated_at: number;
}

/** What one lease holds under its org's GPU quota (migration 0020). */
export interface GpuHoldsTable {
  lease_id: string;
  org_id: string;
  kind: "deployment" | "scratch" | "job";
  gpus: number;
  created_at: number;
  /** The deployment that displaced it; null: not displaced. */
  preempted_by: string | null;
}

/** An org's outbound webhook endpoint (migrations/0014); its deliveries live in the org's OrgEventsObject. */
export interface WebhookEndpointsTable {
  id: string;
  org_id: string;
  url: string;
  /** JSON array of event types, or `["*"]`. */
  events: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_until: number | null;
  disabled_at: number | null;
  disabled_reason: "gone" | "failing" | null;
  failing_since: number | null;
  /** Attempts failed in a row since the last delivery (migrations/0024). */
  consecutive_failures: Generated<number>;
  created_at: number;
  updated_at: number;
}

export interface Database {
  leases: LeasesTable;
  lease_names: LeaseNamesTable;
  idempotency: IdempotencyTable;
  orphans: OrphansTable;
  sweep_locks: SweepLocksTable;
  orgs: OrgsTable;
  api_keys: ApiKeysTable;
  issuers: IssuersTable;
  issuers_displaced: IssuersDisplacedTable;
  offers: OffersTable;
  quotes: QuotesTable;
  offer_markets: OfferMarketsTable;
  catalog: CatalogTable;
  bad_hosts: BadHostsTable;
  lease_machines: LeaseMachinesTable;
  ingress_events: IngressEventsTable;
  billing_records: BillingRecordsTable;
  billing_cursors: BillingCursorsTable;
  receipts: ReceiptsTable;
  budgets: BudgetsTable;
  budget_reservations: BudgetReservationsTable;
  gpu_quotas: GpuQuotasTable;
  gpu_holds: GpuHoldsTable;
  provider_keys: ProviderKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  deployments: DeploymentsTable;
  volumes: VolumesTable;
  volume_mounts: VolumeMountsTable;
  volume_bills: VolumeBillsTable;
}

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;

export type OrgRow = Selectable<OrgsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type IssuerRow = Selectable<IssuersTable>;
export type OfferRow = Selectable<OffersTable>;
export type NewOfferRow = Insertable<OffersTable>;
