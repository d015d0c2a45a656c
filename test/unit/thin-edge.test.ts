/**
 * The edge is thin (STYLE.md "Where things live"): functions/ parses, calls src/ and renders.
 * Read as text, its sources must hold that:
 * - no file under functions/ queries D1 itself (kysely's builders, a prepared statement, a `sql`
 *   template); the queries are repositories in src/ (docs/storage.md names each table's writers);
 * - a route file (functions/v1/<area>.ts) imports no other edge module but the shared plumbing,
 *   functions/context.ts and functions/middleware.ts;
 * - a route file serves only its own URL area, /v1/<area>..., mounted at /v1 by functions/app.ts;
 * - src/ never imports from functions/.
 * Each check is first shown to find a violation, so that it can fail.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..", "..");
const FUNCTIONS = path.join(root, "functions");
const ROUTES = path.join(FUNCTIONS, "v1");
const SRC = path.join(root, "src");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sources(full);
    return full.endsWith(".ts") ? [full] : [];
  });
}

const rel = (file: string) => path.relative(root, file);

/** D1 reached directly: a kysely builder, a raw statement or batch, a `sql` template, kysely itself. */
const DIRECT_QUERY = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\.prepare\(|\.batch\(|\bsql\s*`|\bsql\.(raw|ref|lit|id|table|join)\(|from\s+["']kysely["']/;

function directQueries(text: string): string[] {
  return text.split("\n").filter((line) => DIRECT_QUERY.test(line)).map((line) => line.trim());
}

/** The module specifiers a file imports or re-exports from, static or dynamic. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\bfrom\s+["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']\s*\)|^\s*import\s+["']([^"']+)["']/gm)) {
    found.push((m[1] ?? m[2] ?? m[3])!);
  }
  return found;
}

/** The files under `dir` a file at `file` imports (relative specifiers only, resolved to `.ts`). */
function importsUnder(file: string, text: string, dir: string): string[] {
  return specifiers(text)
    .filter((s) => s.startsWith("."))
    .map((s) => {
      const resolved = path.resolve(path.dirname(file), s);
      return resolved.endsWith(".ts") ? resolved : `${resolved}.ts`;
    })
    .filter((target) => target === dir || target.startsWith(dir + path.sep));
}

/** Edge plumbing every edge module may use. */
const PLUMBING = new Set([path.join(FUNCTIONS, "context.ts"), path.join(FUNCTIONS, "middleware.ts")]);
/** The modules that assemble the edge: the Worker (index.ts) and the app that mounts each area. */
const ASSEMBLY: Record<string, (target: string) => boolean> = {
  [path.join(FUNCTIONS, "index.ts")]: (t) => t === path.join(FUNCTIONS, "app.ts") || t === path.join(FUNCTIONS, "cron.ts"),
  [path.join(FUNCTIONS, "app.ts")]: (t) => path.dirname(t) === ROUTES,
};

/** The edge modules `file` imports that it may not: any but the plumbing, save what assembly needs. */
function forbiddenEdgeImports(file: string, text: string): string[] {
  const allowed = ASSEMBLY[file] ?? (() => false);
  return importsUnder(file, text, FUNCTIONS)
    .filter((t) => t !== file && !PLUMBING.has(t) && !allowed(t))
    .map(rel);
}

/** The route paths a route file declares (`path: "/..."` in its createRoute calls). */
function routePaths(text: string): string[] {
  return [...text.matchAll(/\bpath:\s*(["'`])(\/[^"'`]*)\1/g)].map((m) => m[2]!);
}

/** The paths of `file` outside its area: functions/v1/<area>.ts serves /<area> and below. */
function pathsOutsideArea(file: string, text: string): string[] {
  const area = `/${path.basename(file, ".ts")}`;
  return routePaths(text).filter((p) => p !== area && !p.startsWith(`${area}/`));
}

const edgeFiles = sources(FUNCTIONS);
const routeFiles = edgeFiles.filter((f) => path.dirname(f) === ROUTES);
const srcFiles = sources(SRC);
const read = (f: string) => readFileSync(f, "utf8");

describe("the edge calls src/ and queries nothing itself", () => {
  it("finds a direct query when there is one (the check can fail)", () => {
    expect(directQueries(`const row = await db.selectFrom("orgs").selectAll().executeTakeFirst();`)).toHaveLength(1);
    expect(directQueries(`await database(c.env.DB)\n  .deleteFrom("issuers")`)).toHaveLength(1);
    expect(directQueries("await c.env.DB.prepare(`SELECT 1`).run();")).toHaveLength(1);
    expect(directQueries("const q = sql`SELECT 1`;")).toHaveLength(1);
    expect(directQueries(`import { sql } from "kysely";`)).toHaveLength(1);
    expect(directQueries(`const rows = await listKeys(database(c.env.DB), orgId, page);`)).toEqual([]);
  });

  it("holds for every file under functions/", () => {
    expect(routeFiles.length).toBeGreaterThan(10);
    const found = edgeFiles.flatMap((f) => directQueries(read(f)).map((line) => `${rel(f)}: ${line}`));
    expect(found).toEqual([]);
  });
});

describe("an edge module imports no other edge module's exports", () => {
  const leases = path.join(ROUTES, "leases.ts");

  it("finds a route file importing another (the check can fail)", () => {
    expect(forbiddenEdgeImports(leases, `import { stubOf } from "./quotes";`)).toEqual(["functions/v1/quotes.ts"]);
    expect(forbiddenEdgeImports(leases, `export { x } from "../v1/keys.ts";`)).toEqual(["functions/v1/keys.ts"]);
    expect(forbiddenEdgeImports(leases, `const m = await import("../cron");`)).toEqual(["functions/cron.ts"]);
    expect(forbiddenEdgeImports(path.join(FUNCTIONS, "middleware.ts"), `import { keyRoutes } from "./v1/keys";`)).toEqual(["functions/v1/keys.ts"]);
    expect(forbiddenEdgeImports(leases, `import { router } from "../context";\nimport { requireScope } from "../middleware";\nimport { x } from "../../src/ids";`)).toEqual([]);
    expect(forbiddenEdgeImports(path.join(FUNCTIONS, "app.ts"), `import { keyRoutes } from "./v1/keys";`)).toEqual([]);
  });

  it("holds for every file under functions/", () => {
    const found = edgeFiles.flatMap((f) => forbiddenEdgeImports(f, read(f)).map((t) => `${rel(f)} imports ${t}`));
    expect(found).toEqual([]);
  });
});

describe("one URL area per route file", () => {
  it("finds a path outside the file's area (the check can fail)", () => {
    const orgs = path.join(ROUTES, "orgs.ts");
    expect(pathsOutsideArea(orgs, `createRoute({ method: "get", path: "/org" })`)).toEqual(["/org"]);
    expect(pathsOutsideArea(orgs, `createRoute({ method: "get", path: "/orgsx" })`)).toEqual(["/orgsx"]);
    expect(pathsOutsideArea(orgs, `createRoute({ path: "/orgs" }); createRoute({ path: \`/orgs/{id}/\${action}\` })`)).toEqual([]);
  });

  it("holds for every functions/v1/<area>.ts, each mounted at /v1", () => {
    const found = routeFiles.flatMap((f) => pathsOutsideArea(f, read(f)).map((p) => `${rel(f)} serves /v1${p}`));
    expect(found).toEqual([]);
    for (const f of routeFiles) expect(routePaths(read(f)).length, rel(f)).toBeGreaterThan(0);
    const mounts = [...read(path.join(FUNCTIONS, "app.ts")).matchAll(/\bapp\.route\(\s*(["'`])([^"'`]*)\1/g)].map((m) => m[2]);
    expect(mounts.length).toBeGreaterThanOrEqual(routeFiles.length);
    expect(new Set(mounts)).toEqual(new Set(["/v1"]));
  });
});

describe("src/ never imports from functions/", () => {
  it("finds such an import when there is one (the check can fail)", () => {
    const file = path.join(SRC, "lease", "create.ts");
    expect(importsUnder(file, `import { router } from "../../functions/context";`, FUNCTIONS)).toHaveLength(1);
    expect(importsUnder(file, `import { newId } from "../ids";`, FUNCTIONS)).toEqual([]);
  });

  it("holds for every file under src/", () => {
    expect(srcFiles.length).toBeGreaterThan(50);
    const found = srcFiles.flatMap((f) => importsUnder(f, read(f), FUNCTIONS).map((t) => `${rel(f)} imports ${rel(t)}`));
    expect(found).toEqual([]);
  });
});
