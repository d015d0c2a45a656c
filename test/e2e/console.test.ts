/**
 * The browser console (docs/console.md) in a real browser: playwright-core driving the system
 * Chromium (Debian's `chromium`; .ci/run installs it) against a real `wrangler dev` started
 * through `npm start`'s own script. Each view is screenshotted into artifacts/console/ and checked
 * with axe: no serious or critical violation.
 */
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, bootstrapTokenFromDevVars, removeStateDir, repoRoot, startServer, stopServer, type Server } from "./server";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARTIFACTS = path.join(repoRoot, "artifacts", "console");
/** What the first load may weigh, gzipped (docs/console.md). */
const FIRST_LOAD_BUDGET_BYTES = 150 * 1024;

let server: Server;
let browser: Browser;
let page: Page;
let adminKey: string;
/** The console's own answers of the first load: path and bytes. */
const firstLoad: Array<{ path: string; body: Buffer }> = [];

async function shoot(name: string) {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** axe on the page as it is: the serious and critical violations, by rule and what they hit. */
async function seriousViolations() {
  const result = await new AxeBuilder({ page }).analyze();
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(" ")) }));
}

const sessionKeys = () => page.evaluate("Object.keys(sessionStorage)") as Promise<string[]>;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (README "The console"), or set CHROMIUM_PATH`);
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startServer();
  const org = await apiCall(server, "POST", "/v1/orgs", bootstrapTokenFromDevVars(), { name: "console" });
  expect(org.status).toBe(201);
  adminKey = org.json.key.secret;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  // A context of its own: axe runs its script in a fresh page of the same context.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.on("response", async (res) => {
    const url = new URL(res.url());
    if (url.pathname.startsWith("/console") && res.status() === 200) firstLoad.push({ path: url.pathname, body: await res.body().catch(() => Buffer.alloc(0)) });
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (server) {
    await stopServer(server);
    removeStateDir(server);
  }
});

describe("the console", () => {
  it("is served at /console with its security headers, and /v1 stays the API's", async () => {
    const res = await fetch(`${server.base}/console/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await res.text();
    // No inline script: every script is a file of this origin.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc="\/console\/)[^>]*>/);
    const bare = await fetch(`${server.base}/console`, { redirect: "manual" });
    expect([301, 307, 308]).toContain(bare.status);
    expect(bare.headers.get("location")).toBe("/console/");
    // The headers file is read, never served; the API answers its own 404.
    expect((await fetch(`${server.base}/_headers`)).status).toBe(404);
    expect(await (await fetch(`${server.base}/v1/healthz`)).json()).toMatchObject({ ok: true });
  });

  it("refuses a wrong key, storing nothing, then signs in", async () => {
    await page.goto(`${server.base}/console/`);
    await page.getByLabel("API key").fill("lsr_not_a_key_of_this_installation");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/refused/i);
    expect(await sessionKeys()).toEqual([]);
    expect(page.url()).not.toContain("lsr_");

    await page.getByLabel("API key").fill(adminKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Leases" }).waitFor();
    expect(page.url()).not.toContain(adminKey);
    expect(await page.evaluate("document.cookie")).toBe("");

    const gz = firstLoad.map((f) => ({ path: f.path, gzipped: gzipSync(f.body).length }));
    const total = gz.reduce((n, f) => n + f.gzipped, 0);
    console.log(`console first load, gzipped: ${(total / 1024).toFixed(1)} KiB (${gz.map((f) => `${f.path} ${f.gzipped} B`).join(", ")}); target ${FIRST_LOAD_BUDGET_BYTES / 1024} KiB`);
    expect(gz.map((f) => f.path).sort()).toEqual(["/console/", "/console/app.css", "/console/app.js"]);
  });

  it("creates a scratch lease, watches it become ready live with its countdown, and ends it through the confirmation", async () => {
    await page.getByText("New scratch lease").click();
    const gpu = page.getByLabel("GPU class");
    await expect.poll(() => gpu.locator("option").count()).toBeGreaterThan(0);
    await page.getByLabel("Name (optional)").fill("console-e2e");
    await page.getByRole("button", { name: "Create scratch lease" }).click();
    const row = page.locator("table.leases tbody tr", { hasText: "console-e2e" });
    await row.waitFor();
    // Ready without a reload: the org's event stream moved it.
    await row.locator("td.state", { hasText: "ready" }).waitFor({ timeout: 60_000 });
    const deadline = row.locator("td.deadline");
    await expect.poll(() => deadline.textContent()).toMatch(/^release in \d+m \d+s \(ttl_expired\)$/);
    const first = await deadline.textContent();
    await expect.poll(() => deadline.textContent(), { timeout: 5_000 }).not.toBe(first);
    await shoot("leases");
    expect(await seriousViolations()).toEqual([]);

    await row.getByRole("link", { name: "console-e2e" }).click();
    await page.getByRole("heading", { name: "console-e2e" }).waitFor();
    // By keyboard: the focus is visible, Enter asks, Escape cancels and nothing happens.
    const end = page.getByRole("button", { name: "End", exact: true });
    const dialog = page.getByRole("dialog");
    await end.focus();
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.press("Tab");
    expect(await page.evaluate("getComputedStyle(document.activeElement).outlineStyle")).toBe("solid");
    await page.keyboard.press("Enter");
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await page.locator(".lease-state").textContent()).toBe("ready");

    await end.click();
    await expect.poll(() => dialog.textContent()).toMatch(/Destroys the machine .* and releases the lease for good; billing stops\. Spent so far: \$\d+\.\d{4}\./);
    await shoot("lease-confirm-end");
    expect(await seriousViolations()).toEqual([]);
    await dialog.getByRole("button", { name: "End lease" }).click();
    await page.locator(".lease-state", { hasText: "released (user_end)" }).waitFor({ timeout: 60_000 });
    await page.locator(".timeline li", { hasText: "released" }).last().waitFor();
    await shoot("lease");
    expect(await seriousViolations()).toEqual([]);

    await page.getByRole("link", { name: "All leases" }).click();
    await page.locator("table.leases tbody tr", { hasText: "console-e2e" }).locator("td.state", { hasText: "released (user_end)" }).waitFor();
  });

  it("draws the catalog's and the usage's charts", async () => {
    await page.getByRole("link", { name: "Catalog", exact: true }).click();
    await page.getByRole("img", { name: /Cheapest offer price per GPU/ }).locator("canvas").waitFor();
    await shoot("catalog");
    expect(await seriousViolations()).toEqual([]);

    // Its next request is refused. The console may already have made one (its live stream, a
    // refresh) and be back at sign-in, the nav gone; else opening Usage makes it.
    await page
      .getByRole("link", { name: "Usage", exact: true })
      .click({ timeout: 5_000 })
      .catch(() => undefined);
    const chart = page.getByRole("img", { name: /Spend by day/ });
    await chart.locator("canvas").waitFor();
    const size = await chart.locator("canvas").evaluate((c) => ({ width: (c as unknown as { width: number }).width, height: (c as unknown as { height: number }).height }));
    expect(size.width).toBeGreaterThan(0);
    expect(size.height).toBeGreaterThan(0);
    await expect.poll(() => page.locator("table", { hasText: "Spend by provider" }).textContent()).toContain("sim");
    await shoot("usage");
    expect(await seriousViolations()).toEqual([]);
  });

  it("renders a table of 1,000 leases (measured and printed)", async () => {
    // The list answered with the org's one lease copied 1,000 times, released, so that none is read again.
    await page.route(/\/v1\/leases\?/, async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      const template = body.data[0];
      body.data = Array.from({ length: 1000 }, (_, i) => ({ ...template, id: `ls_${String(i).padStart(26, "0")}`, name: `bulk-${i}`, state: "released" }));
      await route.fulfill({ response: res, json: body });
    });
    // The Leases view mounted afresh (from another view): it lists again, through the route above.
    await page.getByRole("link", { name: "Leases", exact: true }).click();
    const ms = (await page.evaluate(`new Promise((resolve) => {
      const tick = () => {
        if (document.querySelectorAll("table.leases tbody tr").length >= 1000) {
          const list = performance.getEntriesByType("resource").filter((r) => r.name.includes("/v1/leases?")).pop();
          resolve(performance.now() - list.responseEnd);
        } else requestAnimationFrame(tick);
      };
      tick();
    })`)) as number;
    console.log(`console: 1,000 leases rendered ${ms.toFixed(0)} ms after their list arrived (target 200 ms)`);
    expect(await page.locator("table.leases tbody tr").count()).toBe(1000);
    await page.getByLabel("Kind").selectOption("job");
    await expect.poll(() => page.locator("table.leases tbody tr").count()).toBe(0);
    const again = (await page.evaluate(`new Promise((resolve) => {
      const select = [...document.querySelectorAll("select")].find((s) => s.closest("label")?.textContent?.startsWith("Kind"));
      const t0 = performance.now();
      select.value = "";
      select.dispatchEvent(new Event("change", { bubbles: true }));
      const tick = () => (document.querySelectorAll("table.leases tbody tr").length >= 1000 ? resolve(performance.now() - t0) : requestAnimationFrame(tick));
      tick();
    })`)) as number;
    console.log(`console: 1,000 leases rendered again by a filter in ${again.toFixed(0)} ms`);
    await page.unroute(/\/v1\/leases\?/);
  });

  it("shows the settings, then a refused key returns to sign-in with the reason, and Sign out forgets the key", async () => {
    await page.getByRole("link", { name: "Settings", exact: true }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await page.getByRole("cell", { name: "runpod" }).waitFor();
    await shoot("settings");
    expect(await seriousViolations()).toEqual([]);

    // A key revoked behind the console's back: its next request is a 401, and the console says so.
    const made = await apiCall(server, "POST", "/v1/keys", adminKey, { name: "browser", scope: "read" });
    await page.getByRole("button", { name: "Sign out" }).click();
    expect(await sessionKeys()).toEqual([]);
    await page.getByLabel("API key").fill(made.json.secret);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    expect((await apiCall(server, "DELETE", `/v1/keys/${made.json.id}`, adminKey)).status).toBeLessThan(300);
    // Its next request is refused. The console may already have made one (its live stream, a
    // refresh) and be back at sign-in, the nav gone; else opening Usage makes it.
    await page
      .getByRole("link", { name: "Usage", exact: true })
      .click({ timeout: 5_000 })
      .catch(() => undefined);
    await expect.poll(() => page.getByRole("status").first().textContent()).toMatch(/^Signed out: .+/);
    await page.getByLabel("API key").waitFor();
    expect(await sessionKeys()).toEqual([]);
    await shoot("sign-in");
    expect(await seriousViolations()).toEqual([]);
  });
});
