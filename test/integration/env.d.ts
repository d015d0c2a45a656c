import type { D1Migration } from "cloudflare:test";
import type { Env as LessorEnv } from "../../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends LessorEnv {
      TEST_MIGRATIONS: D1Migration[];
    }
  }
}
