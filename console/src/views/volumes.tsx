/** Volumes: the org's storage that outlives a lease (docs/volumes.md), as a table. */
import { api, call } from "../api";
import { usd } from "../format";
import { ErrorNote, Head, useLoad } from "../ui";

export function VolumesView() {
  const list = useLoad(() => call(api.GET("/v1/volumes", { params: { query: { limit: 200 } } })));
  const rows = list.value?.data ?? [];
  return (
    <section aria-labelledby="volumes-title">
      <h1 id="volumes-title">Volumes</h1>
      <ErrorNote error={list.error} />
      {rows.length === 0 ? (
        <p role="status">{list.loading ? "Loading volumes…" : "No volumes."}</p>
      ) : (
        <table>
          <Head columns={["Name", "Provider", "Region", "Size", "State", "Monthly", "Mounted by"]} />
          <tbody>
            {rows.map((v) => (
              <tr key={v.id}>
                <td>{v.name}</td>
                <td>{v.provider}</td>
                <td>{v.region}</td>
                <td>{v.size_gb} GB</td>
                <td>{v.state}</td>
                <td>{usd(v.monthly_usd)}</td>
                <td>
                  {v.mounted_by.map((id, i) => (
                    <span key={id}>
                      {i > 0 ? ", " : ""}
                      <a href={`#/leases/${id}`}>{id}</a>
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
