/** The console's build (scripts/build-console.mjs): what it writes, and that a second build writes nothing. */
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ASSETS_DIR, buildConsole } from "../../scripts/build-console.mjs";

describe("buildConsole", () => {
  it("writes the page, its one script and stylesheet, and the headers file", () => {
    const files = buildConsole().map((f: { file: string }) => f.file).sort();
    expect(files).toEqual(["_headers", "console/app.css", "console/app.js", "console/index.html"]);
    const html = readFileSync(path.join(ASSETS_DIR, "console", "index.html"), "utf8");
    // Every script is a file of this origin: the CSP allows no other.
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="/console/app.js">']);
  });

  it("gives /console and everything under it the same security headers", () => {
    buildConsole();
    const rules = readFileSync(path.join(ASSETS_DIR, "_headers"), "utf8")
      .split(/\n(?=\/)/)
      .filter((block) => block.startsWith("/"));
    expect(rules.map((r) => r.split("\n")[0])).toEqual(["/console", "/console/*"]);
    for (const rule of rules) {
      expect(rule).toMatch(/Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self';.* frame-ancestors 'none'/);
      expect(rule).not.toContain("unsafe-");
      expect(rule).toContain("Referrer-Policy: no-referrer");
      expect(rule).toContain("X-Content-Type-Options: nosniff");
    }
  });

  it("leaves files whose bytes did not change alone (a running wrangler dev reloads on every write)", () => {
    buildConsole();
    const app = path.join(ASSETS_DIR, "console", "app.js");
    const before = statSync(app).mtimeMs;
    buildConsole();
    expect(statSync(app).mtimeMs).toBe(before);
  });
});
