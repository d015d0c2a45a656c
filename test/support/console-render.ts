/**
 * How long the console's Leases view takes to show a long table (docs/console.md): measured in
 * the page, from the list's answer arriving to the table's caption counting the leases and its
 * rows in view being drawn. Used by the console's e2e test (printed) and by `npm run bench`
 * (the figure against its target).
 */
import type { Page } from "playwright-core";

/** The target: 1,000 leases drawn within this long of their list arriving. */
export const RENDER_TARGET_MS = 200;

/** True in the page once the Leases table counts `n` or more and its rows in view are drawn. */
export const tableDrawn = (n: number) =>
  `parseInt(document.querySelector("table.leases caption")?.textContent ?? "") >= ${n} && document.querySelector("table.leases tbody tr[data-lease]")`;

/** Answers the org's lease list with its first lease copied `n` times, released (so none is read again). */
export async function copiesOfFirstLease(page: Page, n: number): Promise<void> {
  await page.route(/\/v1\/leases\?/, async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    const template = body.data[0];
    body.data = Array.from({ length: n }, (_, i) => ({ ...template, id: `ls_${String(i).padStart(26, "0")}`, name: `bulk-${i}`, state: "released" }));
    await route.fulfill({ response: res, json: body });
  });
}

/**
 * Opens the Leases view (from another view) and answers the milliseconds from the list's answer
 * to the table of `n` being drawn.
 */
export async function leasesRenderMs(page: Page, n: number): Promise<number> {
  await page.getByRole("link", { name: "Leases", exact: true }).click();
  return (await page.evaluate(`new Promise((resolve) => {
    const tick = () => {
      if (${tableDrawn(n)}) {
        const list = performance.getEntriesByType("resource").filter((r) => r.name.includes("/v1/leases?")).pop();
        resolve(performance.now() - list.responseEnd);
      } else requestAnimationFrame(tick);
    };
    tick();
  })`)) as number;
}
