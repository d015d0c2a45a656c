// @ts-check
/**
 * The CLI's exit codes, one table: `lessor help exit-codes` prints it and docs/cli.md copies it
 * (test/unit/cli-exit-codes.test.ts checks the copy). An API error becomes one of them by its
 * stable `code` first, its HTTP status second.
 */

export const EXIT = /** @type {const} */ ({
  OK: 0,
  UNEXPECTED: 1,
  USAGE: 2,
  NOT_FOUND: 3,
  PROVIDER: 4,
  AUTH: 5,
  NO_CAPACITY: 6,
  PROVISIONING: 7,
  TIMEOUT: 8,
  UNSUPPORTED: 9,
  OVER_BUDGET: 10,
  MODEL_SERVER: 11,
  INCOMPLETE: 12,
});

/** @type {ReadonlyArray<readonly [number, string]>} */
export const EXIT_CODE_TABLE = [
  [EXIT.OK, "ok"],
  [EXIT.UNEXPECTED, "unexpected: an internal error, an answer the CLI did not expect, the server not reachable"],
  [EXIT.USAGE, "usage or configuration: a bad flag or argument, no URL or key configured, a request the API refused as invalid"],
  [EXIT.NOT_FOUND, "not found: no lease, key, receipt, volume or provider by that id or name"],
  [EXIT.PROVIDER, "provider error: a provider refused a key or did not answer"],
  [EXIT.AUTH, "authentication or scope: the API key is not valid, or its scope does not allow the command"],
  [EXIT.NO_CAPACITY, "no capacity: no offer fits the request, or the model does not fit the machine asked for"],
  [EXIT.PROVISIONING, "provisioning failed: the lease was released before its command ran (boot or start timeout, host failed, provider refused or lost it)"],
  [EXIT.TIMEOUT, "timeout: the server did not answer in time, or an upload or download made no progress for 30 s"],
  [EXIT.UNSUPPORTED, "unsupported: this installation or provider cannot do that"],
  [EXIT.OVER_BUDGET, "over budget: the request would pass one of the org's caps (spend, or its storage quota); nothing changed"],
  [EXIT.MODEL_SERVER, "model server failed: `lessor up`'s deployment was released before its model answered (it exited while starting, answered without a key, or did not answer by its startup_timeout)"],
  [EXIT.INCOMPLETE, "data incomplete: a job's outputs did not all come back (the lease's outputs_incomplete), or bytes did not match their SHA-256 on the way up or down (what did not match was not kept)"],
];

/** The API's error codes whose class is not the one their HTTP status suggests. */
const BY_CODE = /** @type {Record<string, number>} */ ({
  unauthenticated: EXIT.AUTH,
  insufficient_scope: EXIT.AUTH,
  bootstrap_disabled: EXIT.AUTH,
  not_found: EXIT.NOT_FOUND,
  no_capacity: EXIT.NO_CAPACITY,
  quote_drift: EXIT.NO_CAPACITY,
  no_placement: EXIT.NO_CAPACITY,
  over_budget: EXIT.OVER_BUDGET,
  storage_quota_exceeded: EXIT.OVER_BUDGET,
  checksum_mismatch: EXIT.INCOMPLETE,
  upload_too_large: EXIT.USAGE,
  provider_not_configured: EXIT.USAGE,
  provider_key_refused: EXIT.PROVIDER,
  provider_unavailable: EXIT.PROVIDER,
  provider_account_mismatch: EXIT.PROVIDER,
  provider_keys_disabled: EXIT.UNSUPPORTED,
  provider_needs_no_key: EXIT.UNSUPPORTED,
  capability_missing: EXIT.UNSUPPORTED,
  misconfigured: EXIT.UNEXPECTED,
  rate_limited: EXIT.UNEXPECTED,
});

/**
 * The exit code for an API error answer. `code` decides when it is known; otherwise the status:
 * 401/403 authentication, 402 budget, 404 not found, other 4xx a request the CLI's user can fix
 * (usage), 5xx unexpected.
 * @param {number} status
 * @param {string | undefined} code
 */
export function exitCodeForApiError(status, code) {
  const known = code === undefined ? undefined : BY_CODE[code];
  if (known !== undefined) return known;
  if (status === 401 || status === 403) return EXIT.AUTH;
  if (status === 402) return EXIT.OVER_BUDGET;
  if (status === 404) return EXIT.NOT_FOUND;
  if (status === 501) return EXIT.UNSUPPORTED;
  if (status === 408 || status === 504) return EXIT.TIMEOUT;
  if (status >= 400 && status < 500 && status !== 429) return EXIT.USAGE;
  return EXIT.UNEXPECTED;
}

/** What a command fails with: a message for stderr, an exit code, and what the API said, if anything. */
export class CliError extends Error {
  /**
   * @param {string} message
   * @param {number} exitCode
   * @param {{ code?: string, details?: Record<string, unknown>, requestId?: string | null }} [extra]
   */
  constructor(message, exitCode, extra = {}) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
    this.code = extra.code ?? codeOfExit(exitCode);
    this.details = extra.details ?? {};
    this.requestId = extra.requestId ?? null;
  }
}

/** The `code` of an error the CLI raises itself (not one the API answered). @param {number} exitCode */
function codeOfExit(exitCode) {
  if (exitCode === EXIT.USAGE) return "usage";
  if (exitCode === EXIT.NOT_FOUND) return "not_found";
  if (exitCode === EXIT.TIMEOUT) return "timeout";
  return "error";
}

export const usageError = (/** @type {string} */ message) => new CliError(message, EXIT.USAGE);
