// @ts-check
/**
 * Where the CLI finds lessor and its key. Precedence: flags (`--url`, `--api-key-file`), then the
 * environment (`LESSOR_URL`, `LESSOR_API_KEY`), then the file `lessor login` writes
 * ($XDG_CONFIG_HOME/lessor/config.json, else ~/.config/lessor/config.json, mode 0600). The key is
 * never taken from an argument, so it never shows in `ps` or a shell history, and never printed.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { CliError, EXIT, usageError } from "./exit-codes.mjs";

/** @typedef {{ url: string, apiKey: string }} Config */
/** @typedef {Record<string, string | undefined>} Env */

/** @param {Env} env */
export function configFile(env) {
  const base = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(env.HOME || homedir(), ".config");
  return path.join(base, "lessor", "config.json");
}

/**
 * The stored settings, or {} when there is no file.
 * @param {string} file
 * @returns {{ url?: string, api_key?: string }}
 */
export function readConfigFile(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if (/** @type {NodeJS.ErrnoException} */ (e).code === "ENOENT") return {};
    throw new CliError(`cannot read ${file}: ${/** @type {Error} */ (e).message}`, EXIT.USAGE);
  }
  try {
    const parsed = JSON.parse(text);
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    return {
      url: typeof parsed.url === "string" ? parsed.url : undefined,
      api_key: typeof parsed.api_key === "string" ? parsed.api_key : undefined,
    };
  } catch {
    throw usageError(`${file} is not a JSON object; run \`lessor login\` again`);
  }
}

/**
 * @param {string} text
 * @param {string} where
 */
export function checkUrl(text, where) {
  let url;
  try {
    url = new URL(text);
  } catch {
    throw usageError(`${where}: "${text}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw usageError(`${where}: "${text}" is not an http(s) URL`);
  return url.toString().replace(/\/+$/, "");
}

/**
 * Whether `url`'s host is this machine: `localhost`, an address of 127.0.0.0/8, or `::1`. A URL
 * as WHATWG parses it, so `127.1` and `0x7f.1` are already `127.0.0.1`, and an IPv6 host is in
 * brackets.
 * @param {URL} url
 */
export function isLoopback(url) {
  const host = url.hostname.toLowerCase();
  return host === "localhost" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Refuses to send a key to `url` over plain http:// unless its host is this machine, or the
 * caller said `--insecure`: anyone on the path would read the key (docs/security.md, hardening
 * item 15).
 * @param {string} url
 * @param {boolean | undefined} insecure
 */
export function checkKeyTransport(url, insecure) {
  const parsed = new URL(url);
  if (parsed.protocol === "https:" || insecure === true || isLoopback(parsed)) return;
  throw usageError(`refusing to send the API key over plain http:// to ${parsed.host}: use https://, or pass --insecure to send it anyway`);
}

/**
 * @param {{ url?: string, apiKeyFile?: string, insecure?: boolean }} flags
 * @param {Env} env
 * @returns {Config}
 */
export function resolveConfig(flags, env) {
  const needFile = flags.url === undefined && !env.LESSOR_URL || flags.apiKeyFile === undefined && !env.LESSOR_API_KEY;
  const file = configFile(env);
  const stored = needFile ? readConfigFile(file) : {};
  const url = flags.url !== undefined ? checkUrl(flags.url, "--url") : env.LESSOR_URL ? checkUrl(env.LESSOR_URL, "LESSOR_URL") : stored.url ? checkUrl(stored.url, file) : undefined;
  const apiKey = flags.apiKeyFile !== undefined ? keyFromFile(flags.apiKeyFile) : env.LESSOR_API_KEY || stored.api_key;
  if (!url) throw usageError("no lessor URL: set LESSOR_URL, pass --url, or run `lessor login`");
  if (!apiKey) throw usageError("no API key: set LESSOR_API_KEY, pass --api-key-file, or run `lessor login`");
  checkKeyTransport(url, flags.insecure);
  return { url, apiKey: apiKey.trim() };
}

/** @param {string} file */
function keyFromFile(file) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw usageError(`--api-key-file: cannot read ${file}: ${/** @type {Error} */ (e).message}`);
  }
  const key = text.trim();
  if (!key) throw usageError(`--api-key-file: ${file} is empty`);
  return key;
}

/**
 * Writes the settings readable by their owner only: a temporary file made with mode 0600, then
 * renamed over the old one, so the key is never readable by others, not even for a moment.
 * @param {string} file
 * @param {{ url: string, api_key: string }} settings
 */
export function writeConfigFile(file, settings) {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  // The mode given to writeFileSync passes through the umask; say it once more.
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}
