// @ts-check
/**
 * The commands that use what runs on a lease's machine (docs/agent.md): `run` a job and stream
 * its output, `logs` (`-f` to follow), `kill` its command, and scratch sessions (`scratch run`,
 * `scratch exec`). Loaded through cli/commands.mjs.
 */
import { constants } from "node:os";
import { call } from "./client.mjs";
import { CliError, EXIT, usageError } from "./exit-codes.mjs";
import { fields, hourly, jsonText, relative, stateText } from "./format.mjs";
import { leaseIdOf } from "./commands.mjs";
import { follow } from "./stream.mjs";
import { bringOutputs, outDir } from "./artifacts.mjs";

/** @typedef {import("./commands.mjs").Ctx} Ctx */
/** @typedef {import("./api-types").components["schemas"]} Schemas */
/** @typedef {{ code: number | null, signal: string | null, at: string }} Exit */
/** @typedef {{ reason: "exited", exit: Exit } | { reason: "released" }} LogEnd */

/** What a shell answers for an interrupted foreground command: 128 + SIGINT's number. */
export const DETACHED_EXIT = 130;

/**
 * The exit code a shell gives a command that ended so: its own code, or 128 + the number of the
 * signal that ended it (an unknown signal's number is taken as 0).
 * @param {Exit} exit
 */
export function exitCodeOf(exit) {
  if (exit.code !== null) return exit.code;
  const number = /** @type {Record<string, number | undefined>} */ (constants.signals)[`SIG${exit.signal ?? ""}`] ?? 0;
  return 128 + number;
}

/**
 * The CLI's exit code for a lease released before its command exited, by the release's reason.
 * @param {string | null} reason
 */
export function exitCodeOfRelease(reason) {
  if (reason === "no_capacity") return EXIT.NO_CAPACITY;
  if (reason === "budget_exceeded" || reason === "quota_exceeded" || reason === "over_budget") return EXIT.OVER_BUDGET;
  if (reason === "boot_timeout" || reason === "startup_timeout" || reason === "host_failed" || reason === "provider_refused" || reason === "provider_lost" || reason === "preempted") {
    return EXIT.PROVISIONING;
  }
  return EXIT.UNEXPECTED;
}

/** A word for sh: as it is when it needs no quoting, else in single quotes. @param {string} word */
export function shellWord(word) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command line the agent runs (`sh -c`): one argument as it is (`'echo hi; exit 3'`), several
 * quoted word by word, as a shell would have passed them.
 * @param {string[]} words
 */
export function commandLine(words) {
  if (words.length === 0) throw usageError("a command is needed after `--`, e.g. lessor run --gpu l4 -- python train.py");
  return words.length === 1 ? /** @type {string} */ (words[0]) : words.map(shellWord).join(" ");
}

/**
 * The policy fields among the flags, as the API takes them (only the ones given).
 * @param {Record<string, any>} f
 */
function policyOf(f) {
  /** @type {Record<string, unknown>} */
  const policy = {};
  if (f.ttl) policy.ttl = f.ttl;
  if (f.maxRuntime) policy.max_runtime = f.maxRuntime;
  if (f.maxInactivity) policy.max_inactivity = f.maxInactivity;
  if (f.outputsWait) policy.outputs_wait = f.outputsWait;
  const recovery = recoveryOf(f);
  if (recovery) policy.recovery = recovery;
  return Object.keys(policy).length ? { policy } : {};
}

/** The losses `--recover` names by default, and all it may name (docs/leases.md "Recovery"). */
export const RECOVERABLE = ["preempted", "host_failed", "provider_lost"];

/**
 * The recovery policy among `run`'s flags: `--recover [losses]` (comma-separated; all three when
 * bare), `--max-restarts N`, `--restart-backoff D`, `--fallback-on-demand`; any of the last three
 * alone means `--recover` too. null: none given.
 * @param {Record<string, any>} f
 */
export function recoveryOf(f) {
  const given = f.recover !== undefined || f.maxRestarts !== undefined || f.restartBackoff !== undefined || f.fallbackOnDemand;
  if (!given) return null;
  const on = typeof f.recover === "string" ? f.recover.split(",").map((/** @type {string} */ x) => x.trim()).filter(Boolean) : RECOVERABLE;
  for (const loss of on) if (!RECOVERABLE.includes(loss)) throw usageError(`--recover: "${loss}" is not one of ${RECOVERABLE.join(", ")}`);
  /** @type {Record<string, unknown>} */
  const r = { on };
  if (f.maxRestarts !== undefined) {
    const n = Number(f.maxRestarts);
    if (!Number.isInteger(n) || n < 0) throw usageError(`--max-restarts: "${f.maxRestarts}" is not a whole number`);
    r.max_restarts = n;
  }
  if (f.restartBackoff !== undefined) r.backoff = f.restartBackoff;
  if (f.fallbackOnDemand) r.fallback_on_demand = true;
  return r;
}

/**
 * What `run` says of a restart, from the lease's events (null: nothing to say): the attempt that
 * ended, with its loss and its machine's time, and the new machine running.
 * @param {{ type: string, reason?: string | null, detail?: Record<string, any> }} e
 */
export function restartNote(e) {
  const d = e.detail ?? {};
  if (e.type === "attempt_ended") {
    return `attempt ${d.attempt} lost its machine (${e.reason}) after ${Math.round((d.machine_ms ?? 0) / 1000)} s; restart ${d.restart} on ${d.next_offer} at ${String(d.next_at).slice(11, 19)}`;
  }
  if (e.type === "ready" && typeof d.restart === "number") return `restart ${d.restart}: running again ${((d.loss_to_running_ms ?? 0) / 1000).toFixed(1)} s after the loss`;
  return null;
}

/**
 * Prints each restart of a job as it happens (on stderr, beside its output), until `signal` or the
 * lease's release ends the follow. A failed follow says so once and stops: the output goes on.
 * @param {Ctx} ctx @param {string} id @param {AbortSignal} signal
 */
async function followRestarts(ctx, id, signal) {
  try {
    for await (const frame of follow(ctx.config(), ctx.io.version, `/v1/leases/${id}/events`, { signal })) {
      if (frame.event === "end") return;
      const note = restartNote(JSON.parse(frame.data));
      if (note) ctx.note(note);
    }
  } catch (e) {
    if (!signal.aborted) ctx.note(`restarts: no longer followed (${e instanceof Error ? e.message : String(e)})`);
  }
}

/** `K=V` flags into the lease's env. @param {string[]} pairs */
/** `--volume name:path` pairs as a lease's `volumes`. @param {string[]} pairs */
function volumesOf(pairs) {
  const volumes = pairs.map((pair) => {
    const colon = pair.indexOf(":");
    if (colon <= 0 || !pair.slice(colon + 1).startsWith("/")) throw usageError(`--volume: "${pair}" is not name:/path`);
    return { name: pair.slice(0, colon), path: pair.slice(colon + 1) };
  });
  return volumes.length ? { volumes } : {};
}

/** @param {string[]} pairs */
function envOf(pairs) {
  /** @type {Record<string, string>} */
  const env = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw usageError(`--env: "${pair}" is not NAME=value`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return Object.keys(env).length ? { env } : {};
}

/**
 * Follows a lease's log until its end: each chunk onto stdout as it arrives (with `--json`, one
 * `{seq, data}` document per line). Answers how the log ended, or null when `signal` stopped it.
 * @param {Ctx} ctx
 * @param {string} id
 * @param {AbortSignal} [signal]
 * @returns {Promise<LogEnd | null>}
 */
export async function followLog(ctx, id, signal) {
  const out = ctx.io.stdout;
  for await (const frame of follow(ctx.config(), ctx.io.version, `/v1/leases/${id}/logs`, { signal })) {
    if (frame.event === "end") return /** @type {LogEnd} */ (JSON.parse(frame.data));
    if (frame.event === "dropped") out.write(ctx.json ? `${jsonText({ dropped: frame.data })}\n` : `${ctx.shown(frame.data)}\n`);
    else out.write(ctx.json ? `${jsonText({ seq: Number(frame.id), data: frame.data })}\n` : ctx.shown(frame.data));
  }
  return null;
}

/**
 * Runs `handler` on Ctrl-C while `work` runs; answers whether Ctrl-C came, with work's result.
 * @template T
 * @param {Ctx} ctx
 * @param {(signal: AbortSignal) => Promise<T>} work
 */
async function interruptible(ctx, work) {
  const controller = new AbortController();
  const off = ctx.io.onInterrupt?.(() => controller.abort()) ?? (() => undefined);
  try {
    const result = await work(controller.signal);
    return { interrupted: controller.signal.aborted, result };
  } finally {
    off();
  }
}

/** @param {Ctx} ctx @param {string} id */
async function releasedEarly(ctx, id) {
  const l = await call(ctx.api().GET("/v1/leases/{id}", { params: { path: { id } } }));
  const reason = l.release_reason ?? null;
  return new CliError(`lease ${id} was released (${reason ?? "no reason given"}) before its command exited`, exitCodeOfRelease(reason), {
    code: reason ?? "released",
    details: { lease_id: id, release_reason: reason },
  });
}

/** @param {Schemas["Lease"]} l */
const machineText = (l) => `${l.provider}${l.offer ? ` ${l.offer.gpu} x${l.offer.gpu_count}, ${l.offer.region}` : ""}, ${hourly(l.hourly_usd)}`;

/**
 * The workdir bundle a new lease names, uploaded from `--workdir` (nothing without the flag).
 * @param {Ctx} ctx @param {Record<string, any>} f
 */
async function workdirOf(ctx, f) {
  if (f.workdir === undefined) return {};
  // tar and ignore are loaded only by the commands that pack: every other command starts without them.
  const { uploadWorkdir } = await import("./workdir.mjs");
  const upload = await uploadWorkdir(ctx, f.workdir);
  return { workdir: upload.id };
}

/**
 * `lessor run --gpu l4 [--workdir .] [--out DIR] -- CMD...`: a job lease for CMD (with the
 * directory's bundle as its working directory), its output streamed, and the job's own exit code
 * as the CLI's; with `--out`, its outputs downloaded into DIR once it has ended, and a job that
 * exited 0 whose outputs did not all come back exits INCOMPLETE. Ctrl-C detaches (the job goes
 * on) and says how to come back; with `--rm` it ends the lease instead.
 * @param {Ctx} ctx @param {string[]} words @param {Record<string, any>} f
 */
export async function run(ctx, words, f) {
  const cmd = commandLine(words);
  // Before anything is rented: a directory that cannot be written fails now, not after the job.
  const out = f.out === undefined ? null : await outDir(f.out, "--out");
  /** @type {Schemas["CreateLeaseForSpec"]} */
  const body = { kind: "job", spec: { gpu: f.gpu, ...(f.spot ? { spot: true } : {}) }, cmd, ...(f.name ? { name: f.name } : {}), ...envOf(f.env ?? []), ...volumesOf(f.volume ?? []), ...policyOf(f), ...(await workdirOf(ctx, f)) };
  const lease = await call(ctx.api().POST("/v1/leases", { body }));
  ctx.note(`lease ${lease.id} (${machineText(lease)}): following its output; Ctrl-C ${f.rm ? "ends the lease" : "detaches"}`);
  // A job that recovers runs on one machine after another: its one log goes on, and each restart is told beside it.
  const restarts = new AbortController();
  const told = lease.policy?.recovery ? followRestarts(ctx, lease.id, restarts.signal) : Promise.resolve();
  const { interrupted, result: end } = await interruptible(ctx, (signal) => followLog(ctx, lease.id, signal)).finally(() => {
    restarts.abort();
    return told;
  });
  if (interrupted || end === null) {
    if (f.rm) {
      await call(ctx.api().POST("/v1/leases/{id}/end", { params: { path: { id: lease.id } } }));
      ctx.note(`ended lease ${lease.id}`);
    } else {
      ctx.note(`detached; the job goes on. Follow it again: lessor logs ${lease.id} -f   End it: lessor end ${lease.id}${out ? `   Its outputs: lessor artifacts get ${lease.id} -o ${f.out}` : ""}`);
    }
    return DETACHED_EXIT;
  }
  if (end.reason !== "exited") {
    // What a job released early (its ttl, a lost host) left is still worth having.
    if (out) {
      await bringOutputs(ctx, lease.id, out, { deadlineMs: 0 }).then(
        (o) => o.error && ctx.note(o.error.message.startsWith("outputs") ? o.error.message : `outputs: ${o.error.message}`),
        (e) => ctx.note(`outputs: ${e instanceof Error ? e.message : String(e)}`),
      );
    }
    throw await releasedEarly(ctx, lease.id);
  }
  let code = exitCodeOf(end.exit);
  const outputs = out ? await bringOutputs(ctx, lease.id, out) : null;
  if (outputs?.error) {
    ctx.io.stderr.write(`error: ${outputs.error.message}\n`);
    if (code === 0) code = outputs.error.exitCode;
  }
  if (ctx.json) ctx.io.stdout.write(`${jsonText({ lease_id: lease.id, exit: end.exit, exit_code: code, ...(outputs ? { outputs: outputs.doc } : {}) })}\n`);
  else if (end.exit.signal !== null) ctx.note(`the command was ended by SIG${end.exit.signal}`);
  return code;
}

/**
 * `lessor logs LEASE [--tail N] [-f]`: the log as it is, or followed until the command exits or
 * the lease is released.
 * @param {Ctx} ctx @param {string[]} args @param {Record<string, any>} f
 */
export async function logs(ctx, [ref], f) {
  const id = await leaseIdOf(ctx, /** @type {string} */ (ref));
  if (f.follow) {
    const end = await followLog(ctx, id);
    if (ctx.json && end) ctx.io.stdout.write(`${jsonText({ end })}\n`);
    return;
  }
  const tail = f.tail === undefined ? undefined : Number(f.tail);
  if (tail !== undefined && !(Number.isInteger(tail) && tail >= 0)) throw usageError(`--tail: "${f.tail}" is not a whole number of lines`);
  const { data, error, response } = await ctx.api().GET("/v1/leases/{id}/logs", { params: { path: { id }, query: { tail } }, parseAs: "text" });
  const text = await call(Promise.resolve({ data, error, response }));
  ctx.print({ lease_id: id, text, log_bytes: Number(response.headers.get("lessor-log-bytes") ?? 0), dropped_bytes: Number(response.headers.get("lessor-log-dropped-bytes") ?? 0) }, () => ctx.shown(text.replace(/\n$/, "")));
}

/** `kill`'s exit code by outcome (docs/cli.md "Exit codes"). */
export const KILL_EXIT = /** @type {const} */ ({ stopped: 0, unknown: 2, still_alive: 3 });

const KILL_TEXT = {
  stopped: "stopped: the command has ended",
  unknown: "unknown: the machine's agent could not be reached; assume nothing was stopped",
  still_alive: "still alive: no exit came within the timeout (kill again without --no-escalate to send KILL)",
};

/**
 * `lessor kill LEASE [--timeout 10s] [--no-escalate]`: TERM, then KILL; the exit code is the
 * outcome's: 0 stopped, 2 unknown, 3 still alive.
 * @param {Ctx} ctx @param {string[]} args @param {Record<string, any>} f
 */
export async function kill(ctx, [ref], f) {
  const id = await leaseIdOf(ctx, /** @type {string} */ (ref));
  const body = { ...(f.timeout ? { timeout: f.timeout } : {}), ...(f.escalate === false ? { escalate: false } : {}) };
  const r = await call(ctx.api().POST("/v1/leases/{id}/kill", { params: { path: { id } }, body }));
  ctx.print(r, () => `${id}: ${KILL_TEXT[r.outcome]}`);
  return KILL_EXIT[r.outcome];
}

/** How often `scratch run` reads the lease while it waits for the machine. */
const READY_POLL_MS = 1_000;

/**
 * `lessor scratch run --gpu G`: a scratch lease, waited for until its machine is ready.
 * @param {Ctx} ctx @param {string[]} _args @param {Record<string, any>} f
 */
export async function scratchRun(ctx, _args, f) {
  /** @type {Schemas["CreateLeaseForSpec"]} */
  const body = { kind: "scratch", spec: { gpu: f.gpu }, ...(f.name ? { name: f.name } : {}), ...envOf(f.env ?? []), ...volumesOf(f.volume ?? []), ...policyOf(f), ...(await workdirOf(ctx, f)) };
  const created = await call(ctx.api().POST("/v1/leases", { body }));
  ctx.note(`lease ${created.id} (${machineText(created)}): waiting for its machine; Ctrl-C stops waiting (the lease goes on)`);
  const { interrupted, result: lease } = await interruptible(ctx, async (signal) => {
    for (;;) {
      const l = await call(ctx.api().GET("/v1/leases/{id}", { params: { path: { id: created.id } } }));
      if (l.state === "ready" || l.state === "released" || signal.aborted) return l;
      await new Promise((r) => setTimeout(r, READY_POLL_MS));
    }
  });
  if (lease.state === "released") throw await releasedEarly(ctx, lease.id);
  const now = ctx.io.now();
  ctx.print(lease, () =>
    fields([
      ["lease", lease.name ? `${lease.id} (${lease.name})` : lease.id],
      ["state", stateText(lease.state, ctx.paint)],
      ["machine", `${machineText(lease)}${lease.machine ? ` (${lease.machine.id})` : ""}`],
      ["ttl", lease.ttl_expires_at ? `ends ${relative(lease.ttl_expires_at, now)}` : "none"],
      ["exec", `lessor scratch exec ${lease.id} -- CMD`],
      ["end", `lessor scratch end ${lease.id}`],
    ]),
  );
  return interrupted ? DETACHED_EXIT : EXIT.OK;
}

/**
 * `lessor scratch exec LEASE [--timeout 30s] -- CMD...`: runs CMD on the machine and prints its
 * output; the exit code is CMD's.
 * @param {Ctx} ctx @param {string[]} args @param {Record<string, any>} f
 */
export async function scratchExec(ctx, [ref, ...words], f) {
  const id = await leaseIdOf(ctx, /** @type {string} */ (ref));
  const body = { cmd: commandLine(words), ...(f.timeout ? { timeout: f.timeout } : {}) };
  const r = await call(ctx.api().POST("/v1/leases/{id}/exec", { params: { path: { id } }, body }));
  if (ctx.json) ctx.print(r, () => "");
  else if (r.output) ctx.io.stdout.write(ctx.shown(r.output));
  if (r.exit_code === null) throw new CliError(`the agent could not run the command (exec ${r.exec_id}: ${r.state})`, EXIT.UNEXPECTED, { code: "exec_failed", details: { exec_id: r.exec_id } });
  return r.exit_code;
}
