/** The Worker: HTTP, cron, the webhook queues, and the Durable Object classes its bindings name (wrangler.toml). */
import { configProblems } from "../src/config";
import type { Env } from "../src/env";
import { countWorkerRequest, meteredEnv } from "../src/metering";
import { consumeDeadLetters, consumeWebhooks, WEBHOOK_DLQ } from "../src/webhooks/consumer";
import { createApp } from "./app";
import { runScheduled } from "./cron";

export { ApiKeyObject } from "../src/auth/key-object";
export { RateLimiter } from "../src/auth/rate-limiter";
export { OrgEventsObject } from "../src/events/org-object";
export { LeaseObject } from "../src/lease/object";
export { DeploymentObject } from "../src/deployments/object";
export { SimCloud } from "../src/providers/sim/cloud";

const app = createApp();

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext) {
    countWorkerRequest();
    return app.fetch(request, meteredEnv(env), ctx);
  },
  // Awaited, not handed to waitUntil: whoever drives the trigger (the platform, `npm start`'s
  // ticker, a test) sees the sweep finished when the call returns.
  async scheduled(controller, env) {
    // A misconfigured installation (src/config.ts) rents, reaps and settles nothing: with the
    // wrong installation id it could take another installation's machines for orphans.
    const problems = configProblems(env);
    if (problems.length > 0) {
      console.error(JSON.stringify({ msg: "cron skipped: installation misconfigured", problems }));
      throw new Error(`installation misconfigured: ${problems.join("; ")}`);
    }
    countWorkerRequest();
    await runScheduled(controller, meteredEnv(env));
  },
  // The webhook queue and its dead-letter queue (wrangler.toml [[queues.consumers]]): outbound
  // deliveries are sent here, never by a request or an object (docs/events.md "Outbound webhooks").
  async queue(batch, env) {
    countWorkerRequest();
    if (batch.queue === WEBHOOK_DLQ) await consumeDeadLetters(batch, meteredEnv(env));
    else await consumeWebhooks(batch, meteredEnv(env));
  },
} satisfies ExportedHandler<Env>;
