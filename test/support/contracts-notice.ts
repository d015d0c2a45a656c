/**
 * vitest globalSetup for the whole run: one line, once, when ../shared/provider-contracts is
 * absent (a clean clone without it), naming why the tests against the providers' published
 * documents are skipped. CI always has the documents, and .ci/run fails on any skipped test.
 */
import { existsSync } from "node:fs";
import { CONTRACTS_DIR } from "./contract-stub";

export default function setup(): void {
  if (!existsSync(CONTRACTS_DIR)) {
    console.log(
      `[provider contracts] ${CONTRACTS_DIR} is absent: the tests that check RunPod, Vast.ai and Lambda traffic against their published API documents are skipped (CI fails on any skip).`,
    );
  }
}
