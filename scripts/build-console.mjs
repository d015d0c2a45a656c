#!/usr/bin/env node
/**
 * Builds the browser console (console/, docs/console.md) into `dist/`, the folder wrangler.toml's
 * `[assets]` serves: `dist/console/` is what `/console/` answers, `dist/docs/` the API reference
 * `/docs/` answers (`referenceFiles`), `dist/_headers` the headers those answers carry (Workers
 * static assets read it; it is not served itself).
 *
 * esbuild's synchronous API, so that nothing it starts outlives the call (scripts/start.mjs
 * leaves no process behind). A file is written only when its bytes changed: a running
 * `wrangler dev` watches the folder and reloads on every write.
 *
 * Run by `npm start` (scripts/start.mjs), `npm run deploy` (scripts/deploy.mjs) and vitest's
 * config, so no separate command is needed; by hand: `node scripts/build-console.mjs`.
 */
import { buildSync } from "esbuild";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const ASSETS_DIR = path.join(root, "dist");
const source = path.join(root, "console");

function writeIfChanged(file, bytes) {
  if (existsSync(file) && Buffer.compare(readFileSync(file), Buffer.from(bytes)) === 0) return;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, bytes);
}

/** Builds the console; returns the files written under ASSETS_DIR (relative) and their sizes. */
export function buildConsole() {
  const result = buildSync({
    entryPoints: { app: path.join(source, "src", "main.tsx") },
    bundle: true,
    minify: true,
    format: "esm",
    target: "es2022",
    platform: "browser",
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    outdir: path.join(ASSETS_DIR, "console"),
    write: false,
    logLevel: "error",
  });
  const files = result.outputFiles.map((f) => ({ path: f.path, bytes: f.contents }));
  for (const name of ["index.html"]) files.push({ path: path.join(ASSETS_DIR, "console", name), bytes: readFileSync(path.join(source, name)) });
  files.push({ path: path.join(ASSETS_DIR, "_headers"), bytes: readFileSync(path.join(source, "_headers")) });
  files.push(...referenceFiles());
  for (const f of files) writeIfChanged(f.path, f.bytes);
  return files.map((f) => ({ file: path.relative(ASSETS_DIR, f.path), bytes: f.bytes.length }));
}

/** Scalar's standalone bundle, as the pinned devDependency @scalar/api-reference ships it. */
const SCALAR_PACKAGE = path.join(root, "node_modules", "@scalar", "api-reference");

/** The Subresource Integrity value of `bytes` (SHA-384, as the W3C SRI spec recommends). */
export function integrity(bytes) {
  return `sha384-${createHash("sha384").update(bytes).digest("base64")}`;
}

/**
 * The API reference at `/docs/` (docs/security.md, hardening item 12): Scalar's standalone bundle
 * under a path that names its version, the page's own init script, and a page that loads both
 * with their integrity. Every script is a file of this origin: the console's key, in this
 * origin's sessionStorage, is readable by any script the origin runs, so none comes from a CDN.
 */
export function referenceFiles() {
  const { version } = JSON.parse(readFileSync(path.join(SCALAR_PACKAGE, "package.json"), "utf8"));
  const bundle = readFileSync(path.join(SCALAR_PACKAGE, "dist", "browser", "standalone.js"));
  const init = readFileSync(path.join(source, "reference", "init.js"));
  const bundleName = `scalar-api-reference-${version}.js`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>lessor API</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="app"></div>
<noscript>The API reference needs JavaScript; the document itself is <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
<script src="/docs/${bundleName}" integrity="${integrity(bundle)}"></script>
<script src="/docs/init.js" integrity="${integrity(init)}"></script>
</body>
</html>
`;
  const dir = path.join(ASSETS_DIR, "docs");
  return [
    { path: path.join(dir, bundleName), bytes: bundle },
    { path: path.join(dir, "init.js"), bytes: init },
    { path: path.join(dir, "index.html"), bytes: Buffer.from(html) },
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const f of buildConsole()) console.log(`console: ${f.file} ${f.bytes} bytes`);
}
