/** Catalog: GPU classes, and the cheapest offer price per class and provider (chart and table). */
import { useMemo } from "preact/hooks";
import type uPlot from "uplot";
import { api, call, type Schemas } from "../api";
import { rate } from "../format";
import { Chart, ErrorNote, Head, useLoad } from "../ui";

const OFFER_PAGES = 5;
export const PALETTE = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989"];

/** Every offer, a page of 200 at a time, at most OFFER_PAGES pages. */
async function offers(): Promise<Schemas["CatalogOffer"][]> {
  const all: Schemas["CatalogOffer"][] = [];
  let cursor: string | undefined;
  for (let i = 0; i < OFFER_PAGES; i++) {
    const page = await call(api.GET("/v1/catalog/offers", { params: { query: { limit: 200, ...(cursor ? { cursor } : {}) } } }));
    all.push(...page.data);
    if (!page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return all;
}

/** Dollars on an axis: as many digits as small amounts need. */
export const dollarAxis = (label: string): uPlot.Axis => ({ label, size: 70, values: (_u, splits) => splits.map((v) => `$${Number(v.toPrecision(3))}`) });

/** Categories along x (their index), one series of points per name: what both the catalog's and the usage's charts draw. */
export function categoryOptions(categories: string[], series: string[], yLabel: string): Omit<uPlot.Options, "width" | "height"> {
  return {
    legend: { live: false },
    scales: { x: { time: false, range: [-0.5, categories.length - 0.5] }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [{ values: (_u, splits) => splits.map((i) => categories[i] ?? ""), splits: () => categories.map((_c, i) => i) }, dollarAxis(yLabel)],
    series: [
      { label: "class" },
      ...series.map((name, i) => ({ label: name, stroke: PALETTE[i % PALETTE.length], width: 2, points: { show: true, size: 8 }, paths: () => null })),
    ],
  };
}

export function CatalogView() {
  const gpus = useLoad(() => call(api.GET("/v1/catalog/gpus")));
  const list = useLoad(offers);
  const table = useMemo(() => {
    const cheapest = new Map<string, Map<string, number>>();
    for (const o of list.value ?? []) {
      const byProvider = cheapest.get(o.gpu) ?? new Map<string, number>();
      byProvider.set(o.provider, Math.min(byProvider.get(o.provider) ?? Infinity, o.hourly_usd / Math.max(1, o.gpu_count)));
      cheapest.set(o.gpu, byProvider);
    }
    const classes = [...cheapest.keys()].sort();
    const providers = [...new Set([...cheapest.values()].flatMap((m) => [...m.keys()]))].sort();
    const data: uPlot.AlignedData = [classes.map((_c, i) => i), ...providers.map((p) => classes.map((c) => cheapest.get(c)?.get(p) ?? null))];
    return { classes, providers, data, options: categoryOptions(classes, providers, "$/GPU-hour") };
  }, [list.value]);
  return (
    <section aria-labelledby="catalog-title">
      <h1 id="catalog-title">Catalog</h1>
      <ErrorNote error={gpus.error ?? list.error} />
      <h2>GPU classes</h2>
      <table>
        <Head columns={["Class", "VRAM", "Offers", "Cheapest"]} />
        <tbody>
          {(gpus.value?.data ?? []).map((g) => (
            <tr key={g.name}>
              <td>{g.name}</td>
              <td>{g.vram_gb} GB</td>
              <td>{g.offers}</td>
              <td>{rate(g.cheapest_hourly_usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Offer prices</h2>
      {table.classes.length > 0 ? (
        <Chart label="Cheapest offer price per GPU, by GPU class and provider" options={table.options} data={table.data} />
      ) : (
        <p role="status">{list.loading ? "Loading offers…" : "No offers."}</p>
      )}
      <table>
        <caption>Cheapest $/GPU-hour by class and provider</caption>
        <thead>
          <tr>
            <th scope="col">Class</th>
            {table.providers.map((p) => (
              <th scope="col" key={p}>
                {p}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.classes.map((c, i) => (
            <tr key={c}>
              <th scope="row">{c}</th>
              {table.providers.map((p, j) => (
                <td key={p}>{rate(table.data[j + 1]![i] ?? null)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
