/** Usage: spend by day and by provider (charts), the budget's caps and what is committed, receipts. */
import { useMemo, useState } from "preact/hooks";
import type uPlot from "uplot";
import { api, call, type Schemas } from "../api";
import { rate, time, usd } from "../format";
import { Chart, ErrorNote, Head, messageOf, useLoad } from "../ui";
import { categoryOptions, dollarAxis, PALETTE } from "./catalog";

const DAYS = 30;
const DAY_MS = 86_400_000;

/** The days shown: the last DAYS, today included (UTC), as the usage route's dates. */
function period(now: number) {
  return { from: new Date(now - DAYS * DAY_MS).toISOString().slice(0, 10), to: new Date(now + DAY_MS).toISOString().slice(0, 10) };
}

function usage(group_by: "day" | "provider") {
  return call(api.GET("/v1/usage", { params: { query: { group_by, ...period(Date.now()) } } }));
}

const SPEND_SERIES = ["estimate", "actual"] as const;

export function UsageView() {
  const byDay = useLoad(() => usage("day"));
  const byProvider = useLoad(() => usage("provider"));
  const receipts = useLoad(() => call(api.GET("/v1/receipts", { params: { query: { limit: 50 } } })));
  const dayChart = useMemo(() => {
    const rows = [...(byDay.value?.data ?? [])].sort((a, b) => a.key.localeCompare(b.key));
    const data: uPlot.AlignedData = [rows.map((r) => Date.parse(`${r.key}T00:00:00Z`) / 1000), rows.map((r) => r.estimate_usd), rows.map((r) => r.actual_usd)];
    const { from, to } = period(Date.now());
    const options: Omit<uPlot.Options, "width" | "height"> = {
      legend: { live: false },
      scales: { x: { range: [Date.parse(from) / 1000, Date.parse(to) / 1000] }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      series: [{ label: "day" }, ...SPEND_SERIES.map((label, i) => ({ label, stroke: PALETTE[i], width: 2, points: { show: true, size: 8 } }))],
      axes: [{}, dollarAxis("USD")],
    };
    return { rows, data, options };
  }, [byDay.value]);
  const providerChart = useMemo(() => {
    const rows = byProvider.value?.data ?? [];
    const data: uPlot.AlignedData = [rows.map((_r, i) => i), rows.map((r) => r.estimate_usd), rows.map((r) => r.actual_usd)];
    return { rows, data, options: categoryOptions(rows.map((r) => r.key), [...SPEND_SERIES], "USD") };
  }, [byProvider.value]);
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <ErrorNote error={byDay.error ?? byProvider.error} />
      <Budget />
      <h2>Spend by day (last {DAYS} days)</h2>
      {dayChart.rows.length > 0 ? <Chart label="Spend by day: estimate and actual, USD" options={dayChart.options} data={dayChart.data} /> : <p role="status">{byDay.loading ? "Loading…" : "No spend in this period."}</p>}
      <SpendTable rows={dayChart.rows} caption="Spend by day" />
      <h2>Spend by provider</h2>
      {providerChart.rows.length > 0 ? <Chart label="Spend by provider: estimate and actual, USD" options={providerChart.options} data={providerChart.data} /> : null}
      <SpendTable rows={providerChart.rows} caption="Spend by provider" />
      <h2>Receipts</h2>
      <ErrorNote error={receipts.error} />
      <table>
        <Head columns={["Lease", "Provider", "Status", "Billed", "Estimate", "Released"]} />
        <tbody>
          {(receipts.value?.data ?? []).map((r) => (
            <tr key={r.id}>
              <td>{r.lease_id !== null ? <a href={`#/leases/${r.lease_id}`}>{r.lease_id}</a> : `volume ${r.volume_id ?? ""}`}</td>
              <td>{r.provider}</td>
              <td>{r.status === "disputed" ? "disputed (billed differs from the estimate)" : r.status}</td>
              <td>{usd(r.actual_usd, 4)}</td>
              <td>{usd(r.estimate_usd, 4)}</td>
              <td>{time(r.released_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function SpendTable({ rows, caption }: { rows: Schemas["UsageRow"][]; caption: string }) {
  return (
    <table>
      <caption>{caption}</caption>
      <Head columns={["Group", "Estimate", "Actual", "Disputed", "Leases"]} />
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            <th scope="row">{r.key}</th>
            <td>{usd(r.estimate_usd, 4)}</td>
            <td>{usd(r.actual_usd, 4)}</td>
            <td>{usd(r.disputed_usd, 4)}</td>
            <td>{r.leases}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The budget's caps (admin may change them) and what is committed against them. */
function Budget() {
  const budget = useLoad(() => call(api.GET("/v1/budget")));
  const [error, setError] = useState<string | null>(null);
  const b = budget.value;
  const save = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const cap = (name: string) => {
      const v = (form.elements.namedItem(name) as HTMLInputElement).value.trim();
      return v === "" ? null : Number(v);
    };
    setError(null);
    try {
      await call(api.PUT("/v1/budget", { body: { monthly_usd: cap("monthly"), concurrent_hourly_usd: cap("concurrent") } }));
      budget.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <>
      <h2>Budget</h2>
      <ErrorNote error={budget.error ?? error} />
      {b ? (
        <>
          <dl class="facts">
            <dt>Committed this month ({b.month})</dt>
            <dd>
              {usd(b.month_committed_usd)} of {b.monthly_usd === null ? "no monthly cap" : usd(b.monthly_usd)}
            </dd>
            <dt>Running now</dt>
            <dd>
              {rate(b.live_hourly_usd)} of {b.concurrent_hourly_usd === null ? "no hourly cap" : rate(b.concurrent_hourly_usd)}
            </dd>
          </dl>
          <form onSubmit={save} class="inline" aria-label="Budget caps">
            <label>
              Monthly cap, USD <input name="monthly" type="number" min="0" step="0.01" defaultValue={b.monthly_usd?.toString() ?? ""} />
            </label>
            <label>
              Concurrent cap, USD/h <input name="concurrent" type="number" min="0" step="0.01" defaultValue={b.concurrent_hourly_usd?.toString() ?? ""} />
            </label>
            <button type="submit">Save caps</button>
          </form>
        </>
      ) : null}
    </>
  );
}
