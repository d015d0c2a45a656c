/** Pieces every view uses: loading an answer, an error note, a ticking clock, a confirmation, a chart. */
import { createContext, type ComponentChildren } from "preact";
import { useCallback, useContext, useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import { ApiFailure } from "./api";

/** What `load` answered, its error, and a reload. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [state, setState] = useState<{ value?: T; error?: string; loading: boolean }>({ loading: true });
  const reload = useCallback(() => {
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (value) => setState({ value, loading: false }),
      (e) => setState({ error: messageOf(e), loading: false }),
    );
  }, deps);
  useEffect(reload, [reload]);
  return { ...state, reload };
}

/** A table's head: one column header per name (its row the first of `aria-rowcount`'s). */
export function Head({ columns }: { columns: string[] }) {
  return (
    <thead>
      <tr aria-rowindex={1}>
        {columns.map((c) => (
          <th scope="col" key={c}>
            {c}
          </th>
        ))}
      </tr>
    </thead>
  );
}

/** A labelled choice among `options`, "all" first (its value ""). */
export function Filter({ label, options, value, onChange }: { label: string; options: readonly string[]; value: string; onChange: (value: string) => void }) {
  return (
    <label>
      {label}{" "}
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">all</option>
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    </label>
  );
}

export const messageOf = (e: unknown): string =>
  e instanceof ApiFailure ? `${e.message} (${e.code})` : e instanceof Error ? e.message : String(e);

export function ErrorNote({ error }: { error?: string | null | undefined }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

const Clock = createContext(Date.now());

/**
 * The page's clock: Date.now(), updated every second, for every component under it that reads
 * useNow. Only those readers render again on a tick (their parents keep the same children), so a
 * table's countdown and cost cells tick while its rows do not.
 */
export function ClockProvider({ children }: { children: ComponentChildren }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return <Clock.Provider value={now}>{children}</Clock.Provider>;
}

export const useNow = (): number => useContext(Clock);

/**
 * A modal confirmation (the native dialog: focus moves into it, Escape cancels): says what will
 * happen and what it costs before `onConfirm` runs.
 */
export function Confirm(props: { title: string; confirmLabel: string; onConfirm: () => void; onCancel: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current!;
    dialog.showModal();
    return () => dialog.close();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="confirm-title" onCancel={props.onCancel}>
      <h2 id="confirm-title">{props.title}</h2>
      {props.children}
      <div class="buttons">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/**
 * A copy button named by `label`; what came of the copy ("Copied", "Copy failed") is said in a
 * live region beside it, so a screen reader hears it too.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [outcome, setOutcome] = useState("");
  return (
    <>
      <button
        type="button"
        aria-label={label}
        onClick={() => {
          setOutcome("");
          void navigator.clipboard.writeText(text).then(
            () => setOutcome("Copied"),
            () => setOutcome("Copy failed: the browser refused the clipboard"),
          );
        }}
      >
        Copy
      </button>{" "}
      <span class="copied" role="status" aria-live="polite">
        {outcome}
      </span>
    </>
  );
}

/** A uPlot chart, named for assistive technology by `label` (the numbers are also in a table beside it). */
export function Chart({ label, options, data }: { label: string; options: Omit<uPlot.Options, "width" | "height">; data: uPlot.AlignedData }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current!;
    const chart = new uPlot({ ...options, width: Math.max(320, el.clientWidth || 640), height: 260 }, data, el);
    return () => chart.destroy();
  }, [options, data]);
  return (
    <figure class="chart">
      <div ref={ref} role="img" aria-label={label} />
      <figcaption>{label}</figcaption>
    </figure>
  );
}
