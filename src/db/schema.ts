/** Kysely's view of the D1 index (migrations/). Layout and meaning: docs/storage.md. */
import type { Insertable, Selectable } from "kysely";

export interface OrgsTable {
  id: string;
  name: string;
  created_at: number;
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

export interface OffersTable {
  id: string;
  provider: string;
  provider_offer_id: string;
  gpu_class: string;
  gpu_count: number;
  vram_gb: number;
  vcpu: number;
  memory_gb: number;
  disk_gb: number;
  region: string;
  host_id: string;
  hourly_usd: number;
  availability: "high" | "medium" | "low";
  spot: number;
  refreshed_at: number;
}

export interface QuotesTable {
  id: string;
  org_id: string;
  body: string;
  created_at: number;
  expires_at: number;
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
}

export interface SweepLocksTable {
  name: string;
  holder: string;
  until: number;
}

/** One row (id 1): the offer cache's generation, rewritten by every refresh (migrations/0005). */
export interface CatalogTable {
  id: number;
  generation: string;
}

export interface Database {
  leases: LeasesTable;
  idempotency: IdempotencyTable;
  orphans: OrphansTable;
  sweep_locks: SweepLocksTable;
  orgs: OrgsTable;
  api_keys: ApiKeysTable;
  issuers: IssuersTable;
  offers: OffersTable;
  quotes: QuotesTable;
  catalog: CatalogTable;
}

export type OrgRow = Selectable<OrgsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type IssuerRow = Selectable<IssuersTable>;
export type OfferRow = Selectable<OffersTable>;
export type NewOfferRow = Insertable<OffersTable>;
