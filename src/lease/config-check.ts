/**
 * The configuration check (`POST /v1/leases/validate`, and a created lease's `warnings`), pure: a
 * lease's resolved policy, image and the providers it may run on in, its warnings out. A warning
 * never refuses a lease; the org setting `require_image_digest` (src/orgs/settings.ts) is what
 * turns an unpinned image into a refusal.
 *
 * The expected boot is the policy's `boot_timeout`: lessor keeps no boot estimate per offer or per
 * provider, and `boot_timeout` is how long lessor lets a machine boot before it tries another host.
 */
import { z } from "@hono/zod-openapi";
import { formatDuration } from "../duration";
import type { ProviderCapabilities } from "../providers/contract";
import type { Policy } from "./policy";

export const WARNING_CODES = ["stopped_disk_unbounded", "idle_timeout_unreachable", "mutable_image_tag", "ttl_shorter_than_boot"] as const;
export type WarningCode = (typeof WARNING_CODES)[number];

export const ConfigWarningSchema = z
  .object({
    code: z.enum(WARNING_CODES),
    field: z.string().describe("the request field it is about, as a path: `policy.stopped_ttl`, `image`"),
    message: z.string(),
  })
  .openapi("ConfigWarning");
export type ConfigWarning = z.infer<typeof ConfigWarningSchema>;

/** An image pinned by its content: `...@sha256:` and the 64 hex digits of the digest. */
const DIGEST_PIN = /@sha256:[0-9a-f]{64}$/;

export function isPinnedImage(image: string): boolean {
  return DIGEST_PIN.test(image);
}

export interface ConfigCheckInput {
  policy: Pick<Policy, "ttl" | "idle_timeout" | "max_lifetime" | "stopped_ttl" | "boot_timeout">;
  /** null: the lease names none (the provider's default runs). */
  image: string | null;
  /** The providers the lease's offers are on. */
  providers: readonly { name: string; capabilities: Pick<ProviderCapabilities, "stop" | "stop_ends_billing"> }[];
}

export function configWarnings({ policy, image, providers }: ConfigCheckInput): ConfigWarning[] {
  const out: ConfigWarning[] = [];
  const billsStopped = providers.filter((p) => p.capabilities.stop && !p.capabilities.stop_ends_billing).map((p) => p.name);
  if (policy.stopped_ttl === null && billsStopped.length > 0) {
    out.push({
      code: "stopped_disk_unbounded",
      field: "policy.stopped_ttl",
      message: `stopped_ttl is null, and a stopped machine on ${billsStopped.join(", ")} keeps billing for its disk with no end; set a stopped_ttl`,
    });
  }
  if (policy.idle_timeout !== null && policy.max_lifetime !== null && policy.idle_timeout > policy.max_lifetime) {
    out.push({
      code: "idle_timeout_unreachable",
      field: "policy.idle_timeout",
      message: `idle_timeout (${formatDuration(policy.idle_timeout)}) is longer than max_lifetime (${formatDuration(policy.max_lifetime)}): the lease ends before it can ever count as idle`,
    });
  }
  if (image !== null && !isPinnedImage(image)) {
    out.push({
      code: "mutable_image_tag",
      field: "image",
      message: `image "${image}" is a mutable tag; pin it by digest (@sha256:...) to run what you tested`,
    });
  }
  if (policy.ttl !== null && policy.ttl < policy.boot_timeout) {
    out.push({
      code: "ttl_shorter_than_boot",
      field: "policy.ttl",
      message: `ttl (${formatDuration(policy.ttl)}) is shorter than the boot it allows (boot_timeout ${formatDuration(policy.boot_timeout)}): the lease may end before its machine is ready`,
    });
  }
  return out;
}

/**
 * Leases stored before warnings were objects hold only the message. Every such message came from
 * the rules above, so its opening words tell its code and field; read-time only, nothing is
 * rewritten.
 */
const STORED_MESSAGES: readonly [RegExp, WarningCode, string][] = [
  [/^stopped_ttl is null\b/, "stopped_disk_unbounded", "policy.stopped_ttl"],
  [/^idle_timeout \(/, "idle_timeout_unreachable", "policy.idle_timeout"],
  [/^image ".*" is a mutable tag\b/, "mutable_image_tag", "image"],
  [/^ttl \(/, "ttl_shorter_than_boot", "policy.ttl"],
];

/** A stored warning as the API shows it: an object stays as it is, an old message becomes one. */
export function storedWarning(w: ConfigWarning | string): ConfigWarning | null {
  if (typeof w !== "string") return w;
  const known = STORED_MESSAGES.find(([pattern]) => pattern.test(w));
  return known ? { code: known[1], field: known[2], message: w } : null;
}

/** Stored warnings, each as an object; a message no rule wrote (there is none) is left out. */
export function storedWarnings(ws: readonly (ConfigWarning | string)[]): ConfigWarning[] {
  return ws.map(storedWarning).filter((w): w is ConfigWarning => w !== null);
}
