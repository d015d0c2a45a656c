/**
 * The contract stub can fail: requests each document would refuse, and answers it does not
 * describe, are reported as violations. Without this, a stub that accepted everything would let
 * every adapter test pass.
 */
import { describe, expect, it } from "vitest";
import { ContractStub, loadContract, type Contract, type StubAnswer } from "../support/contract-stub";

const runpod = loadContract("runpod-v2-openapi.yaml");
const vast = loadContract("vast-openapi.yaml");
const lambda = loadContract("lambda-cloud-openapi.json");
const KEY = "test-key-0123456789";

function stub(contract: Contract, answer: StubAnswer | ((op: string) => StubAnswer) = { status: 200, body: {} }) {
  return new ContractStub(contract, { apiKey: KEY, handler: (call) => (typeof answer === "function" ? answer(call.operationId) : answer) });
}

/** Sends one request through the stub; returns the stub's violations. */
async function send(s: ContractStub, method: string, url: string, options: { body?: unknown; auth?: string | null; contentType?: string } = {}) {
  const headers: Record<string, string> = {};
  if (options.auth !== null) headers.authorization = options.auth ?? `Bearer ${KEY}`;
  if (options.body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
  await s.fetch(url, { method, headers, body: options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body) });
  return s.violations;
}

const POD = {
  id: "pod1",
  name: "lessor-test-ls_1-a1",
  image: "img",
  args: "",
  disk: 50,
  ports: [],
  env: {},
  registry: null,
  status: "RUNNING",
  actions: ["stop", "restart", "terminate"],
  mounts: {},
  gpu: { id: "NVIDIA L40S", count: 1 },
  cloud: "SECURE",
  dataCenterId: "US-KS-2",
  template: null,
  cost: 0.86,
  locked: false,
  globalNetworking: { enabled: false },
  runtime: null,
  createdAt: "2026-06-01T12:00:00Z",
  startedAt: null,
};

describe("the contract loader", () => {
  it("answers null for a document that is absent, so that its tests skip (the run says why once: test/support/contracts-notice.ts)", () => {
    expect(loadContract("no-such-provider-openapi.yaml")).toBeNull();
  });
});

describe.skipIf(!runpod)("the contract stub, with RunPod's document", () => {
  const base = "https://api.runpod.io";
  const pod = (status = 201) => () => ({ status, body: POD });

  it("accepts a request and an answer the document describes", async () => {
    const s = stub(runpod!, pod());
    expect(await send(s, "POST", `${base}/v2/pods`, { body: { name: "x", image: "i", gpu: { id: "NVIDIA L40S", count: 1 }, cloud: "SECURE", dataCenterIds: ["US-KS-2"] } })).toEqual([]);
    expect(s.calls.map((c) => c.operationId)).toEqual(["createPod"]);
  });

  it("refuses a body the schema refuses: gpuTypeIds/gpuCount/imageName are not CreatePodRequest fields", async () => {
    const v = await send(stub(runpod!, pod()), "POST", `${base}/v2/pods`, { body: { name: "x", imageName: "i", gpuTypeIds: ["NVIDIA L40S"], gpuCount: 1 } });
    expect(v.join("\n")).toMatch(/createPod.*body.*(image|unevaluated)/);
  });

  it("refuses a missing or wrong Authorization header", async () => {
    expect(await send(stub(runpod!), "GET", `${base}/v2/pods`, { auth: null })).toHaveLength(1);
    expect(await send(stub(runpod!), "GET", `${base}/v2/pods`, { auth: `Bearer not-the-key` })).toHaveLength(1);
    expect(await send(stub(runpod!), "GET", `${base}/v2/pods`, { auth: `Basic ${KEY}` })).toHaveLength(1);
  });

  it("refuses a path, method, server, or parameter the document does not have", async () => {
    expect((await send(stub(runpod!), "GET", `${base}/v2/pods/`)).join()).toMatch(/no path/);
    expect((await send(stub(runpod!), "PUT", `${base}/v2/pods/abc`, { body: {} })).join()).toMatch(/no PUT/);
    expect((await send(stub(runpod!), "GET", `https://rest.runpod.io/v1/pods`)).join()).toMatch(/not under any server/);
    expect((await send(stub(runpod!), "GET", `${base}/v2/pods?name=lessor-`)).join()).toMatch(/query parameter "name" is not in the document/);
    expect((await send(stub(runpod!), "GET", `${base}/v2/catalog/gpus?include=EVERYTHING`)).join()).toMatch(/query parameter "include"/);
    expect((await send(stub(runpod!), "GET", `${base}/v2/catalog/gpus?count=0`)).join()).toMatch(/query parameter "count"/);
    expect((await send(stub(runpod!), "POST", `${base}/v2/pods/abc/action`, { body: { action: "pause" } })).join()).toMatch(/body/);
    expect((await send(stub(runpod!), "POST", `${base}/v2/pods`, { body: "name=x", contentType: "application/x-www-form-urlencoded" })).join()).toMatch(/content-type/);
  });

  it("refuses answers the document does not describe", async () => {
    const missing = { ...POD } as Record<string, unknown>;
    delete missing.cost;
    expect((await send(stub(runpod!, { status: 200, body: missing }), "GET", `${base}/v2/pods/pod1`)).join()).toMatch(/cost/);
    expect((await send(stub(runpod!, { status: 200, body: { ...POD, status: "STOPPED" } }), "GET", `${base}/v2/pods/pod1`)).join()).toMatch(/status/);
    expect((await send(stub(runpod!, { status: 204, body: { ok: true } }), "DELETE", `${base}/v2/pods/pod1`)).join()).toMatch(/no body/);
    expect((await send(stub(runpod!, { status: 404, body: { error: "nope" } }), "GET", `${base}/v2/pods/pod1`)).join()).toMatch(/title|detail/);
    expect((await send(stub(runpod!, { status: 429, body: { title: "x", status: 429, detail: "y" }, headers: { "retry-after": "soon" } }), "GET", `${base}/v2/pods`)).join()).toMatch(/Retry-After/i);
  });
});

describe.skipIf(!runpod)("the contract stub as a provider that checks its own key (refuse)", () => {
  const base = "https://api.runpod.io";
  const refusing = (answer: StubAnswer) =>
    new ContractStub(runpod!, { apiKey: KEY, handler: () => ({ status: 200, body: { pods: [] } }), refuse: () => answer });
  const unauthorized = { status: 401, body: { title: "Unauthorized", status: 401, detail: "invalid bearer token" } };

  it("answers a wrong or missing key with the refusal, which is no violation", async () => {
    const s = refusing(unauthorized);
    const res = await s.fetch(`${base}/v2/pods`, { headers: { authorization: "Bearer not-the-key" } });
    expect(res.status).toBe(401);
    expect((await s.fetch(`${base}/v2/pods`)).status).toBe(401);
    expect(s.violations).toEqual([]);
    expect((await s.fetch(`${base}/v2/pods`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
  });

  it("still holds the refusal to the document, and the rest of the request too", async () => {
    const s = refusing({ status: 401, body: { error: "nope" } });
    await s.fetch(`${base}/v2/pods`, { headers: { authorization: "Bearer not-the-key" } });
    expect(s.violations.join()).toMatch(/listPods answering 401: body/);
    const t = refusing(unauthorized);
    await t.fetch(`${base}/v2/pods?name=x`, { headers: { authorization: "Bearer not-the-key" } });
    expect(t.violations.join()).toMatch(/query parameter "name"/);
  });
});

describe.skipIf(!vast)("the contract stub, with Vast's document", () => {
  const base = "https://console.vast.ai";

  it("takes the document's paths as written: no trailing slash, integer ids", async () => {
    expect(await send(stub(vast!, { status: 200, body: { success: true, new_contract: 7 } }), "PUT", `${base}/api/v0/asks/123`, { body: { image: "i", label: "l" } })).toEqual([]);
    // The README writes `PUT /asks/{offer_id}/`; the document has no trailing slash.
    expect((await send(stub(vast!), "PUT", `${base}/api/v0/asks/123/`, { body: { image: "i" } })).join()).toMatch(/no path/);
    expect((await send(stub(vast!), "PUT", `${base}/api/v0/asks/abc`, { body: { image: "i" } })).join()).toMatch(/path parameter "id"/);
    expect((await send(stub(vast!), "PUT", `${base}/api/v0/asks/123`, { body: { label: "no image" } })).join()).toMatch(/image/);
    // There is no v0 list of instances; the list is /api/v1/instances.
    expect((await send(stub(vast!), "GET", `${base}/api/v0/instances`)).join()).toMatch(/no path/);
    expect((await send(stub(vast!), "GET", `${base}/api/v1/instances?limit=100`)).join()).toMatch(/limit/);
    expect((await send(stub(vast!), "PUT", `${base}/api/v0/instances/5`, { body: { state: "paused" } })).join()).toMatch(/state/);
  });

  it("admits an undocumented 429 or 5xx only when it says so, as a note", async () => {
    const s = stub(vast!, { status: 429, body: { detail: "slow down" }, undocumented: "the search documents no 429" });
    expect(await send(s, "POST", `${base}/api/v0/bundles`, { body: { limit: 1 } })).toEqual([]);
    expect(s.notes).toHaveLength(1);
    expect((await send(stub(vast!, { status: 429, body: { detail: "slow down" } }), "POST", `${base}/api/v0/bundles`, { body: { limit: 1 } })).join()).toMatch(/no such status/);
    expect((await send(stub(vast!, { status: 418, body: {}, undocumented: "teapot" }), "POST", `${base}/api/v0/bundles`, { body: { limit: 1 } })).join()).toMatch(/no such status/);
  });

  it("admits an undocumented 401 as a note: destroy lists no auth failure, a gateway answers first", async () => {
    const s = stub(vast!, { status: 401, body: { success: false, error: "auth_error", msg: "Invalid user key" }, undocumented: "destroy lists no auth failure" });
    expect(await send(s, "DELETE", `${base}/api/v0/instances/5`)).toEqual([]);
    expect(s.notes).toHaveLength(1);
  });
});

describe.skipIf(!lambda)("the contract stub, with Lambda's document", () => {
  const base = "https://cloud.lambda.ai";
  const launch = { region_name: "us-east-1", instance_type_name: "gpu_1x_h100_sxm5", ssh_key_names: ["k"], name: "lessor-test-ls_1-a1" };

  it("checks the launch body and accepts Bearer or Basic, as the document's security allows", async () => {
    const ok = { status: 200, body: { data: { instance_ids: ["abc"] } } };
    expect(await send(stub(lambda!, ok), "POST", `${base}/api/v1/instance-operations/launch`, { body: launch })).toEqual([]);
    expect(await send(stub(lambda!, ok), "POST", `${base}/api/v1/instance-operations/launch`, { body: launch, auth: `Basic ${Buffer.from(`${KEY}:`).toString("base64")}` })).toEqual([]);
    const { ssh_key_names: _, ...noKey } = launch;
    expect((await send(stub(lambda!, ok), "POST", `${base}/api/v1/instance-operations/launch`, { body: noKey })).join()).toMatch(/ssh_key_names/);
    expect((await send(stub(lambda!, ok), "POST", `${base}/api/v1/instance-operations/launch`, { body: { ...launch, name: "x".repeat(65) } })).join()).toMatch(/name/);
    expect((await send(stub(lambda!, ok), "POST", `${base}/api/v1/instance-operations/launch`, { body: launch, auth: `Token ${KEY}` })).join()).toMatch(/security/);
  });

  it("refuses an error envelope the document does not describe", async () => {
    const bad = { status: 400, body: { error: { code: "capacity", message: "none" } } };
    expect((await send(stub(lambda!, bad), "POST", `${base}/api/v1/instance-operations/launch`, { body: launch })).join()).toMatch(/error/);
    const good = { status: 400, body: { error: { code: "instance-operations/launch/insufficient-capacity", message: "Not enough capacity to fulfill launch request." } } };
    expect(await send(stub(lambda!, good), "POST", `${base}/api/v1/instance-operations/launch`, { body: launch })).toEqual([]);
  });
});
