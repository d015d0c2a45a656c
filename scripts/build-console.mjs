#!/usr/bin/env node
/**
 * Builds the browser console (console/, docs/console.md) into `dist/`, the folder wrangler.toml's
 * `[assets]` serves: `dist/console/` is what `/console/` answers, `dist/_headers` the headers
 * those answers carry (Workers static assets read it; it is not served itself).
 *
 * esbuild's synchronous API, so that nothing it starts outlives the call (scripts/start.mjs
 * leaves no process behind). A file is written only when its bytes changed: a running
 * `wrangler dev` watches the folder and reloads on every write.
 *
 * Run by `npm start` (scripts/start.mjs), `npm run deploy` (scripts/deploy.mjs) and vitest's
 * config, so no separate command is needed; by hand: `node scripts/build-console.mjs`.
 */
import { buildSync } from "esbuild";
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
  for (const f of files) writeIfChanged(f.path, f.bytes);
  return files.map((f) => ({ file: path.relative(ASSETS_DIR, f.path), bytes: f.bytes.length }));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const f of buildConsole()) console.log(`console: ${f.file} ${f.bytes} bytes`);
}
