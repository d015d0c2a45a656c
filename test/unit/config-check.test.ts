/** The configuration check's rules (src/lease/config-check.ts), each on both sides of its boundary. */
import { describe, expect, it } from "vitest";
import { defaultImageOf, KNOWN_PROVIDERS } from "../../src/providers/registry";
import { configWarnings, isPinnedImage, storedWarning, storedWarnings, type ConfigCheckInput, type WarningCode } from "../../src/lease/config-check";

const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const PIN = `ghcr.io/acme/app@sha256:${"a".repeat(64)}`;
const BILLS_STOPPED = { name: "runpod", capabilities: { stop: true, stop_ends_billing: false } };
const STOP_ENDS_BILLING = { name: "quiet", capabilities: { stop: true, stop_ends_billing: true } };
const CANNOT_STOP = { name: "vmcloud", capabilities: { stop: false, stop_ends_billing: false } };

const BASE: ConfigCheckInput = {
  policy: { ttl: 4 * H, idle_timeout: 30 * M, max_lifetime: 24 * H, stopped_ttl: 24 * H, boot_timeout: 10 * M },
  image: PIN,
  providers: [BILLS_STOPPED],
};
const withPolicy = (p: Partial<ConfigCheckInput["policy"]>, rest: Partial<ConfigCheckInput> = {}): ConfigCheckInput => ({ ...BASE, ...rest, policy: { ...BASE.policy, ...p } });

const CASES: [string, ConfigCheckInput, WarningCode[]][] = [
  ["a sound configuration", BASE, []],
  ["stopped_ttl null where stopped disk bills", withPolicy({ stopped_ttl: null }), ["stopped_disk_unbounded"]],
  ["stopped_ttl set where stopped disk bills", withPolicy({ stopped_ttl: 1 * M }), []],
  ["stopped_ttl null where a stop ends billing", withPolicy({ stopped_ttl: null }, { providers: [STOP_ENDS_BILLING] }), []],
  ["stopped_ttl null where nothing can stop", withPolicy({ stopped_ttl: null }, { providers: [CANNOT_STOP] }), []],
  ["stopped_ttl null, one of several providers bills stopped disk", withPolicy({ stopped_ttl: null }, { providers: [STOP_ENDS_BILLING, BILLS_STOPPED] }), ["stopped_disk_unbounded"]],
  ["idle_timeout one ms longer than max_lifetime", withPolicy({ idle_timeout: 2 * H + 1, max_lifetime: 2 * H }), ["idle_timeout_unreachable"]],
  ["idle_timeout equal to max_lifetime", withPolicy({ idle_timeout: 2 * H, max_lifetime: 2 * H }), []],
  ["idle_timeout with no max_lifetime", withPolicy({ idle_timeout: 48 * H, max_lifetime: null }), []],
  ["no idle_timeout", withPolicy({ idle_timeout: null, max_lifetime: 1 * M }), []],
  ["a mutable tag", { ...BASE, image: "vllm/vllm-openai:latest" }, ["mutable_image_tag"]],
  ["a digest one hex digit short", { ...BASE, image: `app@sha256:${"a".repeat(63)}` }, ["mutable_image_tag"]],
  ["no image", { ...BASE, image: null }, []],
  ["ttl one ms shorter than boot_timeout", withPolicy({ ttl: 10 * M - 1 }), ["ttl_shorter_than_boot"]],
  ["ttl equal to boot_timeout", withPolicy({ ttl: 10 * M }), []],
  ["no ttl", withPolicy({ ttl: null }), []],
  ["everything at once", withPolicy({ ttl: 1 * M, idle_timeout: 3 * H, max_lifetime: 2 * H, stopped_ttl: null }, { image: "ubuntu" }), ["stopped_disk_unbounded", "idle_timeout_unreachable", "mutable_image_tag", "ttl_shorter_than_boot"]],
];

describe("configWarnings", () => {
  it.each(CASES)("%s", (_name, input, codes) => {
    const warnings = configWarnings(input);
    expect(warnings.map((w) => w.code)).toEqual(codes);
    for (const w of warnings) expect(w.message.length).toBeGreaterThan(0);
  });

  it("names the field each warning is about", () => {
    const all = configWarnings(CASES.at(-1)![1]);
    expect(Object.fromEntries(all.map((w) => [w.code, w.field]))).toEqual({
      stopped_disk_unbounded: "policy.stopped_ttl",
      idle_timeout_unreachable: "policy.idle_timeout",
      mutable_image_tag: "image",
      ttl_shorter_than_boot: "policy.ttl",
    });
  });

  it("pins only by a whole sha256 digest at the end", () => {
    expect(isPinnedImage(PIN)).toBe(true);
    expect(isPinnedImage(`${PIN}0`)).toBe(false);
    expect(isPinnedImage(`app@sha256:${"A".repeat(64)}`)).toBe(false);
    expect(isPinnedImage("app:sha256")).toBe(false);
  });

  it("every provider's default image is pinned, or there is none", () => {
    const images = KNOWN_PROVIDERS.map((name) => [name, defaultImageOf(name)] as const);
    for (const [name, image] of images) expect(image === null || isPinnedImage(image), `${name}: ${image}`).toBe(true);
    // RunPod's and Vast's creates require an image; the sim and Lambda run none.
    expect(images.filter(([, image]) => image !== null).map(([name]) => name).sort()).toEqual(["runpod", "vast"]);
  });
});

describe("storedWarning (leases stored when warnings were their messages alone)", () => {
  const all = configWarnings(CASES.at(-1)![1]);

  it.each(all.map((w) => [w.code, w] as const))("reads %s back from its message", (_code, w) => {
    expect(storedWarning(w.message)).toEqual(w);
  });

  it("keeps a warning that is already an object as it is", () => {
    for (const w of all) expect(storedWarning(w)).toBe(w);
  });

  it("reads only the opening words the rules wrote", () => {
    expect(storedWarning("the ttl (5m) is short")).toBeNull();
    expect(storedWarning("image is a mutable tag")).toBeNull();
    expect(storedWarnings(["nothing a rule wrote", all[0]!.message, all[1]!])).toEqual([all[0], all[1]]);
  });
});
