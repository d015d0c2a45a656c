/** Who is calling, once authenticated: always exactly one org (docs/design.md "Words"). */
export const SCOPES = ["read", "write", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

export interface Principal {
  org_id: string;
  /** null: a JWT that carried no lessor scope; it may call nothing. */
  scope: Scope | null;
  kind: "api_key" | "jwt";
  /** The API key's id, or `<issuer id>:<sub>` for a JWT: the unit of rate limiting. */
  subject: string;
}

const LEVEL: Record<Scope, number> = { read: 1, write: 2, admin: 3 };

export function hasScope(p: Principal, needed: Scope): boolean {
  return p.scope !== null && LEVEL[p.scope] >= LEVEL[needed];
}
