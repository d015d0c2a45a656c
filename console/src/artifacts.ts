/**
 * What the console says about a lease's outputs (docs/artifacts.md): the outputs events in words,
 * and a download that carries the key. Pure but for `download`, which needs a document; the types
 * come straight from the generated document so that the rest loads in Node
 * (test/unit/console-artifacts.test.ts).
 */
import type { components } from "../../cli/api-types";
import { bytesText } from "../../cli/format.mjs";

type LeaseEvent = components["schemas"]["LeaseEvent"];

/** At most this many missing paths are named in a line; the count says the rest. */
const MISSING_NAMED = 3;

export { bytesText };

/** An outputs event in words ("2 files, 9.0 MiB uploaded"), or null for any other event. */
export function outputsText(e: LeaseEvent): string | null {
  if (e.type === "outputs_uploaded") return `${files(e.detail.files)}, ${bytesText(e.detail.bytes)} uploaded`;
  if (e.type === "outputs_incomplete") {
    const d = e.detail;
    const named = d.missing.slice(0, MISSING_NAMED).join(", ");
    const more = d.missing_count > Math.min(d.missing.length, MISSING_NAMED) ? `, and ${d.missing_count - Math.min(d.missing.length, MISSING_NAMED)} more` : "";
    return `${d.missing_count} of ${files(d.files)} (${bytesText(d.bytes)}) not uploaded: ${named}${more}`;
  }
  return null;
}

const files = (n: number) => `${n} ${n === 1 ? "file" : "files"}`;

/** The URL of one artifact's bytes: each segment encoded, the slashes kept. */
export const artifactUrl = (leaseId: string, path: string) =>
  `/v1/leases/${encodeURIComponent(leaseId)}/artifacts/${path.split("/").map(encodeURIComponent).join("/")}`;

/** The name a download is saved under: the path's last segment. */
export const downloadName = (path: string) => path.slice(path.lastIndexOf("/") + 1);
