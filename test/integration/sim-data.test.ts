/**
 * The sim's agent moves a lease's data for real (docs/sim.md "Data in and out", issue 29): it
 * fetches the workdir through `GET /v1/agent/workdir`, checks its digest, unpacks it for `cat`,
 * and after the command sends the manifest and uploads each `write` through the agent routes
 * (one PUT, or in parts above 8 MiB) before it reports the exit. In the Workers pool, the agent's
 * HTTP calls reach the Worker (test/integration/agent-routes.ts).
 */
import { SELF } from "cloudflare:test";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PART_SIZE } from "../../src/artifacts/limits";
import { toHex } from "../../src/ids";
import { simFileBytes } from "../../src/providers/sim/files";
import { gzip, tarOf } from "../support/tar-write";
import { BASE, BOOTSTRAP, call, createKey, createOrg, json, refreshCatalog } from "./helpers";
import { createLease, events, fastSim, waitFor } from "./lease-helpers";

let key: string;

beforeAll(async () => {
  key = (await createKey(await createOrg(), "write")).secret;
  await refreshCatalog();
});

beforeEach(async () => {
  await fastSim();
});

const sha = async (bytes: Uint8Array) => toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));

async function bundle(bytes: Uint8Array): Promise<string> {
  const res = await SELF.fetch(`${BASE}/v1/uploads`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/gzip", "content-length": String(bytes.byteLength), "lessor-sha256": await sha(bytes) },
    body: bytes,
  });
  expect(res.status).toBe(201);
  return (await json(res)).id;
}

async function snapshot(id: string) {
  const res = await call("GET", `/v1/sim/leases/${id}/agent`, { key: BOOTSTRAP });
  expect(res.status).toBe(200);
  return json(res);
}

const exitOf = (id: string) => waitFor(`lease ${id}'s exit`, async () => (await snapshot(id)).exit, 30_000);

describe("the sim's agent runs data in and out", () => {
  it("cats a file of the workdir and uploads its writes, one PUT and in parts, with the right digests", async () => {
    const upl = await bundle(await gzip(tarOf([{ path: "data" }, { path: "data/hello.txt", data: "hello from the workdir\nsecond line\n" }, { path: "README", data: "read me" }])));
    const big = PART_SIZE + 1024 * 1024 + 7;
    const cmd = `cat data/hello.txt; cat ./README; cat missing.txt; write result.json 1000 s1; write ckpt/model.bin ${big}; exit 3`;
    const lease = await createLease(key, { kind: "job", spec: { gpu: "l40s:1" }, cmd, workdir: upl, policy: { on_exit: "keep" } });

    expect(await exitOf(lease.id)).toMatchObject({ code: 3, signal: null });
    expect((await snapshot(lease.id)).log).toBe("hello from the workdir\nsecond line\nread me\ncat: missing.txt: No such file or directory\n");

    // The exit came after the uploads: the artifacts are listed already.
    const listed = await json(await call("GET", `/v1/leases/${lease.id}/artifacts`, { key }));
    const want = [
      { path: "ckpt/model.bin", size: big, sha256: await sha(simFileBytes("ckpt/model.bin", 0, big)) },
      { path: "result.json", size: 1000, sha256: await sha(simFileBytes("s1", 0, 1000)) },
    ];
    expect(listed.data.map((a: { path: string; size: number; sha256: string }) => ({ path: a.path, size: a.size, sha256: a.sha256 })).sort((a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1))).toEqual(want);
    const got = await call("GET", `/v1/leases/${lease.id}/artifacts/result.json`, { key });
    expect(got.status).toBe(200);
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(simFileBytes("s1", 0, 1000));

    const uploaded = await waitFor("outputs_uploaded", async () => (await events(key, lease.id)).find((e) => e.type === "outputs_uploaded"));
    expect(uploaded.detail).toEqual({ files: 2, bytes: big + 1000 });
  });

  it("a run without a workdir starts all the same, and a cat finds nothing", async () => {
    const lease = await createLease(key, { kind: "job", spec: { gpu: "l40s:1" }, cmd: "cat a.txt; echo done", policy: { on_exit: "keep" } });
    expect(await exitOf(lease.id)).toMatchObject({ code: 0 });
    expect((await snapshot(lease.id)).log).toBe("cat: a.txt: No such file or directory\ndone\n");
    expect((await json(await call("GET", `/v1/leases/${lease.id}/artifacts`, { key }))).data).toEqual([]);
  });

  it("a bundle that is not a gzip-compressed tar fails the run with code 2 before the command starts, and says why", async () => {
    const upl = await bundle(new TextEncoder().encode("not a tarball"));
    const lease = await createLease(key, { kind: "job", spec: { gpu: "l40s:1" }, cmd: "echo never; write x.bin 10", workdir: upl, policy: { on_exit: "keep" } });
    expect(await exitOf(lease.id)).toMatchObject({ code: 2, signal: null });
    const { log } = await snapshot(lease.id);
    expect(log).toMatch(/^lessor-agent: cannot unpack the workdir: not a gzip-compressed tar archive/);
    expect(log).not.toContain("never");
    expect((await json(await call("GET", `/v1/leases/${lease.id}/artifacts`, { key }))).data).toEqual([]);
  });
});
