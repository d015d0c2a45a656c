/**
 * The CLI's exit codes: each API error class maps to its code, docs/cli.md carries the same table
 * as `lessor help exit-codes`, and an answer from the API becomes a CliError with its message.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { apiError, transportError } from "../../cli/client.mjs";
import { EXIT, EXIT_CODE_TABLE, exitCodeForApiError } from "../../cli/exit-codes.mjs";
import { main } from "../../cli/main.mjs";
import { captureIo } from "../support/cli-io";

describe("exitCodeForApiError", () => {
  it.each([
    [401, "unauthenticated", EXIT.AUTH],
    [403, "insufficient_scope", EXIT.AUTH],
    [404, "not_found", EXIT.NOT_FOUND],
    [409, "no_capacity", EXIT.NO_CAPACITY],
    [409, "quote_drift", EXIT.NO_CAPACITY],
    [409, "no_placement", EXIT.NO_CAPACITY],
    [402, "over_budget", EXIT.OVER_BUDGET],
    [409, "storage_quota_exceeded", EXIT.OVER_BUDGET],
    [413, "upload_too_large", EXIT.USAGE],
    [413, "file_too_large", EXIT.USAGE],
    [400, "invalid_path", EXIT.USAGE],
    [400, "checksum_mismatch", EXIT.INCOMPLETE],
    [400, "invalid_request", EXIT.USAGE],
    [400, "invalid_duration", EXIT.USAGE],
    [400, "unknown_gpu", EXIT.USAGE],
    [400, "invalid_range", EXIT.USAGE],
    [409, "invalid_state", EXIT.USAGE],
    [409, "name_taken", EXIT.USAGE],
    [409, "provider_not_configured", EXIT.USAGE],
    [422, "provider_key_refused", EXIT.PROVIDER],
    [503, "provider_unavailable", EXIT.PROVIDER],
    [409, "provider_account_mismatch", EXIT.PROVIDER],
    [503, "provider_keys_disabled", EXIT.UNSUPPORTED],
    [400, "provider_needs_no_key", EXIT.UNSUPPORTED],
    [409, "capability_missing", EXIT.UNSUPPORTED],
    [409, "quote_expired", EXIT.USAGE],
    [409, "limit_reached", EXIT.USAGE],
    [409, "provider_in_use", EXIT.USAGE],
    [413, "payload_too_large", EXIT.USAGE],
    [422, "idempotency_mismatch", EXIT.USAGE],
    [429, "rate_limited", EXIT.UNEXPECTED],
    [500, "internal", EXIT.UNEXPECTED],
    [503, "misconfigured", EXIT.UNEXPECTED],
  ])("%i %s exits %i", (status, code, exit) => {
    expect(exitCodeForApiError(status, code)).toBe(exit);
  });

  it.each([
    [401, EXIT.AUTH],
    [403, EXIT.AUTH],
    [402, EXIT.OVER_BUDGET],
    [404, EXIT.NOT_FOUND],
    [400, EXIT.USAGE],
    [422, EXIT.USAGE],
    [499, EXIT.USAGE],
    [429, EXIT.UNEXPECTED],
    [500, EXIT.UNEXPECTED],
    [501, EXIT.UNSUPPORTED],
    [504, EXIT.TIMEOUT],
    [502, EXIT.UNEXPECTED],
  ])("a code it does not know: by status %i, %i", (status, exit) => {
    expect(exitCodeForApiError(status, "something_new")).toBe(exit);
    expect(exitCodeForApiError(status, undefined)).toBe(exit);
  });
});

describe("API answers as CLI errors", () => {
  it("keeps the API's message, code, details and request id", () => {
    const response = new Response(null, { status: 409 });
    const err = apiError(response, { error: { code: "no_capacity", message: "nothing fits", details: { constraint: "gpu" } }, request_id: "req_1" });
    expect(err).toMatchObject({ message: "nothing fits", exitCode: EXIT.NO_CAPACITY, code: "no_capacity", details: { constraint: "gpu" }, requestId: "req_1" });
  });

  it("an answer that is not the envelope still says its status", () => {
    const err = apiError(new Response(null, { status: 502, statusText: "Bad Gateway" }), "<html>");
    expect(err.exitCode).toBe(EXIT.UNEXPECTED);
    expect(err.code).toBe("http_502");
    expect(err.message).toContain("502");
  });

  it("no answer in time is 8; no answer at all is 1", () => {
    expect(transportError(new DOMException("t", "TimeoutError")).exitCode).toBe(EXIT.TIMEOUT);
    const refused = Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } });
    expect(transportError(refused)).toMatchObject({ exitCode: EXIT.UNEXPECTED, message: "cannot reach lessor: ECONNREFUSED" });
  });

  it("a server that is not there: exit 1 with --json's error document", async () => {
    const io = captureIo({ env: { LESSOR_URL: "http://127.0.0.1:9", LESSOR_API_KEY: "lsr_x" } });
    expect(await main(["gpus", "--json"], io)).toBe(EXIT.UNEXPECTED);
    expect(JSON.parse(io.out())).toMatchObject({ error: { code: "unreachable" }, exit_code: 1 });
    expect(io.err()).toMatch(/^error: cannot reach lessor/);
    expect(io.err() + io.out()).not.toContain("lsr_x");
  });
});

describe("the exit-code table", () => {
  it("lists 0 to 12 once each, in order", () => {
    expect(EXIT_CODE_TABLE.map(([code]) => code)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it("docs/cli.md's exit codes section carries the same table", () => {
    const doc = readFileSync(path.join(import.meta.dirname, "..", "..", "docs", "cli.md"), "utf8");
    const section = /^## Exit codes\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(doc)?.[1];
    expect(section, 'docs/cli.md has no "## Exit codes" section').toBeDefined();
    const rows = [...section!.matchAll(/^\| (\d+) \| (.+?) \|$/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(rows).toEqual(EXIT_CODE_TABLE.map(([code, meaning]) => [code, meaning]));
  });
});
