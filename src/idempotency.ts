/**
 * `Idempotency-Key` (guarantee 10): the same key and body within 24 hours replays the first
 * answer, status included; the same key with another body is 422 `idempotency_mismatch`; of two
 * concurrent requests with one key, one does the work and the other waits for its answer.
 *
 * The claim is one `INSERT ... ON CONFLICT DO NOTHING` in D1, which has a single writer, so two
 * requests can never both win it. A request that fails with an error leaves no record, so the
 * client may retry it.
 */
import type { Db } from "./db";
import { ApiError } from "./errors";
import { sha256Hex } from "./ids";

export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
/** How long a second request waits for the first one's answer before giving up with 409. */
const WAIT_MS = 15_000;
const WAIT_STEP_MS = 100;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface Answer {
  status: number;
  body: unknown;
}

export async function idempotent(
  db: Db,
  scope: { org_id: string; route: string },
  key: string | undefined,
  body: unknown,
  now: number,
  work: () => Promise<Answer>,
): Promise<Answer & { replayed: boolean }> {
  if (key === undefined) return { ...(await work()), replayed: false };
  if (!KEY_PATTERN.test(key)) {
    throw new ApiError(400, "invalid_idempotency_key", "Idempotency-Key must be 1 to 255 printable ASCII characters");
  }
  const bodyHash = await sha256Hex(JSON.stringify(body ?? null));
  const where = { ...scope, key };
  await db
    .deleteFrom("idempotency")
    .where("org_id", "=", where.org_id)
    .where("route", "=", where.route)
    .where("key", "=", key)
    .where("created_at", "<", now - IDEMPOTENCY_WINDOW_MS)
    .execute();
  const claimed = await db
    .insertInto("idempotency")
    .values({ ...where, body_hash: bodyHash, status: null, response: null, created_at: now })
    .onConflict((oc) => oc.doNothing())
    .returning("key")
    .executeTakeFirst();

  if (claimed) {
    let answer: Answer;
    try {
      answer = await work();
    } catch (e) {
      await release(db, where);
      throw e;
    }
    await db
      .updateTable("idempotency")
      .set({ status: answer.status, response: JSON.stringify(answer.body) })
      .where("org_id", "=", where.org_id)
      .where("route", "=", where.route)
      .where("key", "=", key)
      .execute();
    return { ...answer, replayed: false };
  }

  for (let waited = 0; ; waited += WAIT_STEP_MS) {
    const row = await db
      .selectFrom("idempotency")
      .select(["body_hash", "status", "response"])
      .where("org_id", "=", where.org_id)
      .where("route", "=", where.route)
      .where("key", "=", key)
      .executeTakeFirst();
    if (!row) {
      // The first request failed and let go of the key: this one may do the work.
      return idempotent(db, scope, key, body, now, work);
    }
    if (row.body_hash !== bodyHash) {
      throw new ApiError(422, "idempotency_mismatch", "this Idempotency-Key was used with a different body", { key });
    }
    if (row.status !== null && row.response !== null) {
      return { status: row.status, body: JSON.parse(row.response) as unknown, replayed: true };
    }
    if (waited >= WAIT_MS) {
      throw new ApiError(409, "idempotency_in_progress", "a request with this Idempotency-Key is still being processed", { key });
    }
    await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
  }
}

async function release(db: Db, w: { org_id: string; route: string; key: string }) {
  await db
    .deleteFrom("idempotency")
    .where("org_id", "=", w.org_id)
    .where("route", "=", w.route)
    .where("key", "=", w.key)
    .where("status", "is", null)
    .execute();
}
