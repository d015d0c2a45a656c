/** The console's build (scripts/build-console.mjs): what it writes, and that a second build writes nothing. */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ASSETS_DIR, buildConsole } from "../../scripts/build-console.mjs";

const repoRoot = path.resolve(import.meta.dirname, "..", "..");
/** The version the lock file pins @scalar/api-reference at. */
const SCALAR_VERSION = JSON.parse(readFileSync(path.join(repoRoot, "node_modules", "@scalar", "api-reference", "package.json"), "utf8")).version as string;

/** dist/_headers's rules, each its path line and its header lines (comments left out). */
function headerRules(): string[] {
  buildConsole();
  return readFileSync(path.join(ASSETS_DIR, "_headers"), "utf8")
    .split("\n")
    .filter((line) => !line.startsWith("#"))
    .join("\n")
    .split(/\n(?=\/)/)
    .filter((block) => block.startsWith("/"));
}

describe("buildConsole", () => {
  it("writes the page, its one script and stylesheet, the headers file, and the API reference", () => {
    const files = buildConsole().map((f: { file: string }) => f.file).sort();
    expect(files).toEqual(["_headers", "console/app.css", "console/app.js", "console/index.html", "docs/index.html", "docs/init.js", `docs/scalar-api-reference-${SCALAR_VERSION}.js`]);
    const html = readFileSync(path.join(ASSETS_DIR, "console", "index.html"), "utf8");
    // Every script is a file of this origin: the CSP allows no other.
    expect(html.match(/<script\b[^>]*>/g)).toEqual(['<script type="module" src="/console/app.js">']);
  });

  it("gives /console and everything under it the same security headers", () => {
    const rules = headerRules();
    expect(rules.map((r) => r.split("\n")[0])).toEqual(["/console", "/console/*", "/docs", "/docs/*"]);
    for (const rule of rules.slice(0, 2)) {
      expect(rule).toMatch(/Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self';.* frame-ancestors 'none'/);
      expect(rule).not.toContain("unsafe-");
      expect(rule).toContain("Referrer-Policy: no-referrer");
      expect(rule).toContain("X-Content-Type-Options: nosniff");
    }
  });

  // Hardening item 12 (docs/security.md): the console's key is in this origin's sessionStorage.
  it("the API reference loads only scripts of this origin, each with its integrity, the bundle under its pinned version", () => {
    buildConsole();
    const dir = path.join(ASSETS_DIR, "docs");
    const html = readFileSync(path.join(dir, "index.html"), "utf8");
    const sri = (file: string) => `sha384-${createHash("sha384").update(readFileSync(path.join(dir, file))).digest("base64")}`;
    const bundle = `scalar-api-reference-${SCALAR_VERSION}.js`;
    expect(html.match(/<script\b[^>]*>/g)).toEqual([`<script src="/docs/${bundle}" integrity="${sri(bundle)}">`, `<script src="/docs/init.js" integrity="${sri("init.js")}">`]);
    // Nothing of another origin: no URL but the document's own path.
    expect(html).not.toMatch(/(https?:)?\/\/[a-z]/i);
    // The bundle is the pinned package's (an exact version, whose bytes the lock file checks), byte for byte.
    expect(JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")).devDependencies["@scalar/api-reference"]).toBe(SCALAR_VERSION);
    const shipped = readFileSync(path.join(repoRoot, "node_modules", "@scalar", "api-reference", "dist", "browser", "standalone.js"));
    expect(readFileSync(path.join(dir, bundle)).equals(shipped)).toBe(true);
    expect(readFileSync(path.join(dir, "init.js"), "utf8")).toMatch(/withDefaultFonts: false,\s+telemetry: false/);
  });

  it("gives /docs and everything under it a policy that runs this origin's scripts only and connects to nothing else", () => {
    for (const rule of headerRules().slice(2)) {
      const csp = /Content-Security-Policy: (.*)/.exec(rule)?.[1] ?? "";
      const directives = new Map(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]));
      expect(directives.get("default-src")).toBe("'self'");
      expect(directives.get("script-src")).toBe("'self'");
      expect(directives.get("connect-src")).toBe("'self'");
      expect(directives.get("object-src")).toBe("'none'");
      expect(directives.get("base-uri")).toBe("'none'");
      expect(directives.get("frame-ancestors")).toBe("'none'");
      // No directive names another origin, and scripts have no inline or eval escape hatch.
      for (const [name, value] of directives) {
        expect(value, name).not.toMatch(/https?:|\*|\bdata:.*script/);
        if (name === "script-src" || name === "default-src") expect(value).not.toContain("unsafe-");
      }
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
