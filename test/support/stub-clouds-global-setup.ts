/**
 * vitest globalSetup: serves the stub clouds (RunPod, Vast.ai, Lambda behind their documents'
 * ContractStubs) on 127.0.0.1 for a whole test run, and stops them at teardown.
 *
 * The port is LESSOR_STUB_PORT when set (the vitest config picks a free one and gives the same
 * number to the Worker's bindings), else any free port. What is served is provided to tests as
 * `inject("stubClouds")` ({url, port, providers}), and said by GET /__admin/health. When
 * ../shared/provider-contracts is absent nothing is served, a notice is printed, and
 * `inject("stubClouds")` is null, so that the tests against real adapters skip.
 */
import { existsSync } from "node:fs";
import type { TestProject } from "vitest/node";
import { CONTRACTS_DIR } from "./contract-stub";
import { STUB_PORT_ENV, type StubCloudsInfo } from "./stub-clouds-admin";
import { startStubClouds } from "./stub-clouds/server";

declare module "vitest" {
  export interface ProvidedContext {
    /** The stub clouds' server, or null when the provider documents are absent. */
    stubClouds: StubCloudsInfo | null;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!existsSync(CONTRACTS_DIR)) {
    // test/support/contracts-notice.ts says so, once for the whole run.
    project.provide("stubClouds", null);
    return undefined;
  }
  const raw = process.env[STUB_PORT_ENV];
  const port = raw ? Number(raw) : 0;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${STUB_PORT_ENV} must be a port number, got "${raw}"`);
  const clouds = await startStubClouds({ port });
  if (clouds.health.providers.length === 0) {
    console.log(`[stub clouds] no provider document found in ${CONTRACTS_DIR}: nothing is served.`);
    await clouds.close();
    project.provide("stubClouds", null);
    return undefined;
  }
  project.provide("stubClouds", { url: clouds.url, port: clouds.port, providers: clouds.health.providers });
  return () => clouds.close();
}
