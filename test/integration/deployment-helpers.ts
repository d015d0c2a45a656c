/** Steps shared by the deployment and gateway tests. */
import { env } from "cloudflare:test";
import { call, type TestOrg } from "./helpers";
import { waitForState } from "./lease-helpers";

/**
 * Deletes every deployment of the org and ends its leases, waiting until they are released: the
 * next test resets the sim, and a machine that vanished under a live lease would mark its host bad
 * for the org.
 */
export async function endEverything(org: TestOrg, key: string): Promise<void> {
  const { results } = await env.DB.prepare("SELECT name FROM deployments WHERE org_id = ?").bind(org.id).all<{ name: string }>();
  for (const d of results) await call("DELETE", `/v1/deployments/${d.name}`, { key });
  const { results: live } = await env.DB.prepare("SELECT id FROM leases WHERE org_id = ? AND state != 'released'").bind(org.id).all<{ id: string }>();
  for (const l of live) await call("POST", `/v1/leases/${l.id}/end`, { key, body: {} });
  for (const l of live) await waitForState(key, l.id, "released");
}
