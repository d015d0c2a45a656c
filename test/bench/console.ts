/**
 * The console's long table (docs/console.md) in the system Chromium against a real `wrangler dev`:
 * the Leases view opened afresh, its list answered with 1,000 leases, timed from the list's answer
 * to the table being drawn (test/support/console-render.ts), several times; the median against
 * the target.
 */
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import type { Server } from "../e2e/server";
import { copiesOfFirstLease, leasesRenderMs, RENDER_TARGET_MS } from "../support/console-render";
import { onceCatalogReady, request, type Client } from "./http";
import { median } from "./in-process";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const LEASES = 1000;

export interface ConsoleResult {
  leases: number;
  runs_ms: number[];
  median_ms: number;
}

export async function benchConsole(server: Server, c: Client, log: (msg: string) => void, runs = 7): Promise<ConsoleResult> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM_PATH`);
  // One lease of the org, the template of the 1,000.
  await onceCatalogReady(server, () => request(c, "POST", "/v1/leases", { kind: "scratch", spec: { gpu: "l4:1" }, policy: { ttl: "10m" } }));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${server.base}/console/`);
    await page.getByLabel("API key").fill(c.key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Catalog", exact: true }).waitFor();
    await copiesOfFirstLease(page, LEASES);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      // From another view, so that the Leases view mounts and lists afresh.
      await page.getByRole("link", { name: "Catalog", exact: true }).click();
      await page.getByRole("heading", { name: "Catalog" }).first().waitFor();
      times.push(Math.round(await leasesRenderMs(page, LEASES)));
      log(`console: run ${i + 1} of ${runs}: ${times.at(-1)} ms`);
    }
    return { leases: LEASES, runs_ms: times, median_ms: median(times) };
  } finally {
    await browser.close();
  }
}

export const consoleMet = (r: ConsoleResult) => r.median_ms < RENDER_TARGET_MS;

export function consoleRows(r: ConsoleResult): string[][] {
  return [["console, Leases view", `ms from the list of ${r.leases} to the table drawn, median of ${r.runs_ms.length}`, `${r.median_ms} (runs ${r.runs_ms.join(", ")})`, `< ${RENDER_TARGET_MS}`, String(consoleMet(r))]];
}
