/**
 * The webhook queue's consumer (wrangler.toml `[[queues.consumers]]`, functions/index.ts `queue`):
 * sends a batch's deliveries side by side, whatever their endpoints, and tells each org's object
 * what came of them (docs/events.md "Outbound webhooks"). Per org and batch it makes two calls to
 * the org's object, whatever the number of messages: `claim` (which deliveries are still to be
 * sent, with their bodies) before, `settle` (every outcome, and the endpoints it disabled) after.
 *
 * Each message is acknowledged or retried on its own, once its outcome is with the object: 2xx
 * and every final failure acknowledge it; a failure the schedule tries again retries it with the
 * schedule's delay (`msg.retry({delaySeconds})`, src/webhooks/schedule.ts `judgeAttempt`). The
 * queue allows MAX_ATTEMPTS deliveries of a message (wrangler.toml `max_retries`), then moves it
 * to the dead-letter queue, whose consumer (`consumeDeadLetters`) records its delivery failed.
 *
 * The handler never throws: the local queue (Miniflare) retries a whole batch that threw,
 * acknowledged messages included.
 */
import { orgEventsStub, tellTwice } from "../events/forward";
import { database } from "../db";
import type { WebhookEndpointRow } from "../db/schema";
import type { Env } from "../env";
import { errorText } from "../errors";
import { dnsResolver, guardTarget, type Guarded } from "../outbound/dns";
import { targetRules } from "../outbound/target";
import { isWebhookMessage, send, type Claimed, type Disabled, type Settlement, type WebhookMessage } from "./deliveries";
import { signingSecrets } from "./endpoints";
import { disableEndpoint, endpointsOf, saveHealth, type HealthRun } from "./repo";
import { judgeAttempt, MAX_ATTEMPTS, RETRY_SCHEDULE_MS, type AttemptOutcome, type EndpointHealth, type Verdict } from "./schedule";
import { signedHeaders } from "./secrets";

/** The queues of wrangler.toml: deliveries, and where the queue moves what it gave up on. */
export const WEBHOOK_QUEUE = "lessor-webhooks";
export const WEBHOOK_DLQ = "lessor-webhooks-dlq";
/** A report that could not be told to the org's object waits this long in the queue. */
export const REPORT_DELAY_S = 5;
/**
 * How many attempts one batch has open at once: a Worker invocation keeps at most six connections
 * open and queues the rest (developers.cloudflare.com/workers/platform/limits/, "Simultaneous open
 * connections"), with their timeouts already running. Held here instead, each attempt's timeout
 * and latency start when its request does. Batches run side by side in their own invocations.
 */
export const SEND_CONCURRENCY = 6;
/** The longest a queue holds a message back (developers.cloudflare.com/queues/configuration/batching-retries/): 12 hours. */
export const MAX_QUEUE_DELAY_S = 12 * 60 * 60;

type Msg = Message<WebhookMessage>;
type DeliveryMsg = Message<Extract<WebhookMessage, { kind: "delivery" }>>;
type ReportMsg = Message<Extract<WebhookMessage, { kind: "report" }>>;

const log = (msg: string, fields: Record<string, unknown>) => console.error(JSON.stringify({ msg, ...fields }));

/** Runs `call`, once more after a failure; false when both failed. */
const tell = (call: () => Promise<unknown>) => tellTwice("webhook queue: a report was not taken", {}, call);

/** The messages of a batch by their org; a message lessor did not write is acknowledged and dropped. */
function byOrg(batch: MessageBatch<unknown>): Map<string, Msg[]> {
  const out = new Map<string, Msg[]>();
  for (const m of batch.messages) {
    if (!isWebhookMessage(m.body)) {
      log("webhook queue: a message of no known form dropped", { queue: batch.queue, message: m.id });
      m.ack();
      continue;
    }
    const list = out.get(m.body.org) ?? [];
    list.push(m as Msg);
    out.set(m.body.org, list);
  }
  return out;
}

export async function consumeWebhooks(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const slots = limiter(SEND_CONCURRENCY);
  await Promise.all([...byOrg(batch)].map(([org, msgs]) => serveOrg(env, org, msgs, slots).catch((e) => giveBack(org, msgs, e))));
}

/**
 * The org's object could not be asked, or something unforeseen failed: every message of the org
 * not yet settled comes back (one settled ignores it), after the schedule's wait for its number of
 * deliveries, so that an outage of the object spends the queue's MAX_ATTEMPTS deliveries over the
 * schedule's day and more, not within a minute.
 */
function giveBack(org: string, msgs: Msg[], e: unknown) {
  log("webhook queue: an org's messages not settled; retried", { org, error: errorText(e) });
  for (const m of msgs) m.retry({ delaySeconds: Math.round((RETRY_SCHEDULE_MS[Math.min(m.attempts, MAX_ATTEMPTS - 1)] ?? 0) / 1000) });
}

/** One endpoint's part of a batch: its row and what every attempt to it needs. */
interface Target {
  ep: WebhookEndpointRow;
  guard: Guarded;
  secrets: string[];
}

/** One attempt made (or not made) in the batch, in the order they ended. */
export interface Done {
  m: DeliveryMsg;
  claimed: Claimed;
  outcome: AttemptOutcome;
  /** False: refused before any request (its URL, its secret); it fails without counting against the endpoint. */
  attempted: boolean;
  latency_ms: number | null;
  at: number;
}

async function serveOrg(env: Env, org: string, msgs: Msg[], slots: Limiter): Promise<void> {
  const deliveries = msgs.filter((m): m is DeliveryMsg => m.body.kind === "delivery");
  const carried = msgs.filter((m): m is ReportMsg => m.body.kind === "report");
  const stub = orgEventsStub(env, org);
  let claims: (Claimed | null)[] = [];
  if (deliveries.length > 0) {
    try {
      claims = await stub.claim(deliveries.map((m) => ({ id: m.body.id, token: m.body.token })));
    } catch (e) {
      // Nothing was sent: everything comes back, reports included.
      return giveBack(org, msgs, e);
    }
  }
  const work: { m: DeliveryMsg; claimed: Claimed }[] = [];
  deliveries.forEach((m, i) => {
    const claimed = claims[i];
    // Finished, retried by hand, handed over again, or gone: never sent twice.
    if (!claimed) m.ack();
    else work.push({ m, claimed });
  });

  const now = Date.now();
  const db = database(env.DB);
  const rows = await endpointsOf(db, org, [...new Set(work.map((w) => w.claimed.endpoint_id))]);
  const targets = new Map<string, Target>();
  await Promise.all(
    rows.map(async (ep) => {
      if (ep.disabled_at !== null) return;
      // Checked again at every batch: the setting that allows loopback may have changed since, and
      // what the name points at may have (docs/security.md "Outbound addresses").
      const [guard, secrets] = await Promise.all([guardTarget(ep.url, targetRules(env, "webhook"), dnsResolver(env)), signingSecrets(env, ep, now)]);
      targets.set(ep.id, { ep, guard, secrets });
    }),
  );

  const settled: Settlement[] = [];
  const done: Done[] = [];
  // Taken endpoint by endpoint in turn, so that one slow receiver holds at most its share of the slots.
  const attempt = async ({ m, claimed }: (typeof work)[number]) => {
    const t = targets.get(claimed.endpoint_id);
    const token = m.body.token;
    if (!t) {
      const ep = rows.find((r) => r.id === claimed.endpoint_id);
      settled.push({ id: m.body.id, token, status: "failed", next_at: null, attempt: null, error: ep ? "endpoint disabled" : "endpoint deleted" });
      return;
    }
    const { guard, secrets } = t;
    if ((!guard.ok && guard.refused) || secrets.length === 0) {
      const error = !guard.ok ? `url refused: ${guard.reason}` : "the signing secret cannot be opened (LESSOR_MASTER_KEY changed): rotate it";
      done.push({ m, claimed, outcome: { status: null, error }, attempted: false, latency_ms: 0, at: Date.now() });
      return;
    }
    if (!guard.ok) {
      // Where the name points could not be checked: nothing is sent, and it counts as a failure,
      // so that the schedule (and the endpoint's failure count) still ends it.
      done.push({ m, claimed, outcome: { status: null, error: guard.reason }, attempted: true, latency_ms: null, at: Date.now() });
      return;
    }
    const headers = await signedHeaders(secrets, claimed.msg_id, Math.floor(Date.now() / 1000), claimed.body);
    const { outcome, latency_ms } = await send(guard.url, headers, claimed.body);
    done.push({ m, claimed, outcome, attempted: true, latency_ms, at: Date.now() });
  };
  await Promise.all(roundRobin(work, (w) => w.claimed.endpoint_id).map((w) => slots(() => attempt(w))));

  const disabled: Disabled[] = [];
  const retries = new Map<DeliveryMsg, number>();
  await Promise.all(
    [...targets.values()].map(async (t) => {
      const mine = done.filter((d) => d.claimed.endpoint_id === t.ep.id);
      if (mine.length === 0) return;
      const judged = judgeEndpoint(t.ep, mine, Math.random);
      settled.push(...judged.settled);
      for (const [m, s] of judged.retries) retries.set(m, s);
      try {
        if (judged.disable) {
          const { reason, health, at } = judged.disable;
          if (await disableEndpoint(db, org, t.ep.id, reason, health, at)) {
            disabled.push({ endpoint_id: t.ep.id, url: t.ep.url, reason, consecutive_failures: health.consecutive_failures });
          }
        } else {
          await saveHealth(db, t.ep, judged.run);
        }
      } catch (e) {
        // The endpoint's health is a count; the deliveries' record still goes to the object.
        log("webhook queue: an endpoint's health not saved", { org, endpoint: t.ep.id, error: errorText(e) });
      }
    }),
  );

  const all = { settled: [...settled, ...carried.flatMap((m) => m.body.settled)], disabled: [...disabled, ...carried.flatMap((m) => m.body.disabled)] };
  let recorded = await tell(() => stub.settle(org, all.settled, all.disabled));
  if (!recorded) {
    // The object could not be told: the report waits in the queue instead, and is told later.
    recorded = await tell(() => env.WEBHOOKS.send({ kind: "report", org, ...all }, { contentType: "json", delaySeconds: REPORT_DELAY_S }));
  }
  if (!recorded) {
    // Neither: everything comes back. A delivery sent now may then be sent again (at least once).
    return giveBack(org, msgs, new Error("the org's object and the queue both refused the report"));
  }
  for (const m of carried) m.ack();
  for (const { m } of work) {
    const delay = retries.get(m);
    if (delay === undefined) m.ack();
    else m.retry({ delaySeconds: delay });
  }
}

/** `items` taken one of each key in turn: a, b, c, a, b, c, a, ... in the order the keys first came. */
export function roundRobin<T>(items: T[], key: (item: T) => string): T[] {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  const out: T[] = [];
  for (let i = 0; out.length < items.length; i++) for (const g of groups.values()) if (i < g.length) out.push(g[i]!);
  return out;
}

/** Runs what it is given, at most `limit` at once, the rest waiting in the order they came. */
export type Limiter = <T>(run: () => Promise<T>) => Promise<T>;

export function limiter(limit: number): Limiter {
  let open = 0;
  const waiting: (() => void)[] = [];
  return async (run) => {
    if (open >= limit) await new Promise<void>((r) => waiting.push(r));
    else open++;
    try {
      return await run();
    } finally {
      // The slot passes straight to the next in line, or is given back.
      const next = waiting.shift();
      if (next) next();
      else open--;
    }
  };
}

/**
 * What one endpoint's attempts of a batch mean, judged one by one in the order they ended, as
 * `judgeAttempt` judges a single one: each delivery's verdict, the messages to retry with their
 * delay, the endpoint's run of health, and whether to disable it (the first verdict that says so;
 * attempts that ended after it in the same batch are recorded as they came, never retried).
 * Pure: `random` is passed in.
 */
export function judgeEndpoint(
  ep: Pick<WebhookEndpointRow, "failing_since" | "consecutive_failures">,
  done: Done[],
  random: () => number,
): { settled: Settlement[]; retries: [DeliveryMsg, number][]; run: HealthRun; disable: { reason: "gone" | "failing"; health: EndpointHealth; at: number } | null } {
  let health: EndpointHealth = { failing_since: ep.failing_since, consecutive_failures: ep.consecutive_failures };
  const run: HealthRun = { cleared: false, failures: 0, first_failure_at: null };
  let disable: { reason: "gone" | "failing"; health: EndpointHealth; at: number } | null = null;
  const settled: Settlement[] = [];
  const retries: [DeliveryMsg, number][] = [];
  for (const d of [...done].sort((a, b) => a.at - b.at)) {
    const attempt = { outcome: d.outcome, latency_ms: d.latency_ms, at: d.at };
    const base = { id: d.m.body.id, token: d.m.body.token, attempt, error: null };
    if (!d.attempted) {
      settled.push({ ...base, status: "failed", next_at: null });
      continue;
    }
    const ok = d.outcome.status !== null && d.outcome.status >= 200 && d.outcome.status < 300;
    const verdict: Verdict | null = disable ? null : judgeAttempt(d.outcome, d.claimed.attempts + 1, health, d.at, random());
    if (ok) {
      health = { failing_since: null, consecutive_failures: 0 };
      Object.assign(run, { cleared: true, failures: 0, first_failure_at: null });
      settled.push({ ...base, status: "succeeded", next_at: null });
      continue;
    }
    health = { failing_since: health.failing_since ?? d.at, consecutive_failures: health.consecutive_failures + 1 };
    run.failures += 1;
    run.first_failure_at ??= d.at;
    if (verdict?.delivery === "pending") {
      // A queue holds a message back in whole seconds, up to MAX_QUEUE_DELAY_S; the record says when it comes.
      const delay = Math.min(MAX_QUEUE_DELAY_S, Math.max(0, Math.round((verdict.next_at - d.at) / 1000)));
      // The queue's last delivery of a message cannot be retried: it would go to the dead-letter queue.
      if (d.m.attempts < MAX_ATTEMPTS) {
        retries.push([d.m, delay]);
        settled.push({ ...base, status: "pending", next_at: d.at + delay * 1000 });
        continue;
      }
    }
    settled.push({ ...base, status: "failed", next_at: null });
    if (verdict && (verdict.endpoint === "disable_gone" || verdict.endpoint === "disable_failing")) {
      disable = { reason: verdict.endpoint === "disable_gone" ? "gone" : "failing", health, at: d.at };
    }
  }
  return { settled, retries, run, disable };
}

/**
 * The dead-letter queue's consumer: a message the queue gave up on (it was delivered MAX_ATTEMPTS
 * times without being settled: the object could not be asked, or the consumer died each time)
 * records its delivery failed, if it is still pending under the message's token, in one call per
 * org and batch. A report the queue gave up on is told once more, then dropped: its deliveries stay
 * pending and the object hands them over again once they are stale (src/webhooks/deliveries.ts).
 */
export async function consumeDeadLetters(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  await Promise.all(
    [...byOrg(batch)].map(async ([org, msgs]) => {
      const settled: Settlement[] = [];
      const disabled: Disabled[] = [];
      for (const { body } of msgs) {
        if (body.kind === "report") {
          settled.push(...body.settled);
          disabled.push(...body.disabled);
        } else {
          settled.push({ id: body.id, token: body.token, status: "failed", next_at: null, attempt: null, error: `the queue gave up on it after ${MAX_ATTEMPTS} deliveries of its message` });
        }
      }
      if (await tell(() => orgEventsStub(env, org).settle(org, settled, disabled))) for (const m of msgs) m.ack();
      else giveBack(org, msgs, new Error("the org's object could not be told"));
    }),
  );
}
