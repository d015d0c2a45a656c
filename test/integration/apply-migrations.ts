// Setup files run outside per-test storage and may run more than once; applyD1Migrations only
// applies what is not yet applied, so this is safe.
import { applyD1Migrations, env } from "cloudflare:test";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
