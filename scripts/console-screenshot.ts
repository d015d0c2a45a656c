/**
 * Writes docs/console.png, the console's picture in the README: the real console, driven in
 * headless Chromium against a real `wrangler dev` started as `npm start` starts it (the e2e tests'
 * own server helper), signed in to a new org holding a job, a scratch session and a deployment,
 * each ready. `npx tsx scripts/console-screenshot.ts`; needs Chromium at /usr/bin/chromium, or
 * CHROMIUM_PATH (docs/console.md "Tests").
 */
import { statSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { apiCall, bootstrapTokenFromDevVars, removeStateDir, repoRoot, startServer, stopServer } from "../test/e2e/server";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const OUT = path.join(repoRoot, "docs", "console.png");
/** The README shows the picture at GitHub's width; a larger one only weighs more. */
const VIEWPORT = { width: 1200, height: 420 };

async function main() {
  const server = await startServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const org = await apiCall(server, "POST", "/v1/orgs", bootstrapTokenFromDevVars(), { name: "acme" });
    if (org.status !== 201) throw new Error(`POST /v1/orgs answered ${org.status}: ${JSON.stringify(org.json)}`);
    const key: string = org.json.key.secret;
    const made = [
      await apiCall(server, "POST", "/v1/leases", key, { kind: "job", name: "train", spec: { gpu: "h100:8" }, cmd: "echo training; sleep 3600" }),
      await apiCall(server, "POST", "/v1/leases", key, { kind: "scratch", name: "notebook", spec: { gpu: "l40s:1" }, policy: { ttl: "2h" } }),
      await apiCall(server, "PUT", "/v1/deployments/chat", key, { model: "Qwen/Qwen2.5-0.5B-Instruct" }),
    ];
    for (const res of made) if (res.status !== 202) throw new Error(`a create answered ${res.status}: ${JSON.stringify(res.json)}`);

    const page = await (await browser.newContext({ viewport: VIEWPORT })).newPage();
    await page.goto(`${server.base}/console/`);
    await page.getByLabel("API key").fill(key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Leases" }).waitFor();
    for (const name of ["train", "notebook", "chat"]) {
      const row = page.locator("table.leases tbody tr", { hasText: name });
      await row.locator("td.state", { hasText: "ready" }).waitFor({ timeout: 60_000 });
    }
    // A few seconds of cost to show, and the countdowns moving.
    await page.waitForTimeout(5_000);
    await page.screenshot({ path: OUT });
    console.log(`wrote ${path.relative(repoRoot, OUT)} (${statSync(OUT).size} bytes)`);
  } finally {
    await browser.close();
    await stopServer(server);
    removeStateDir(server);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
