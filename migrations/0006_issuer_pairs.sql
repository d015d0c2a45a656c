-- Issue 10, item 5: a JWT names its org by its (iss, aud), so a pair is held by at most one org
-- across the installation. Before this, two orgs could register the same pair, after which tokens
-- both accepted verified for neither (src/auth/jwt.ts failed closed): one org could lock another
-- out of JWT login.
--
-- Existing duplicates: the unique index below cannot be built while two rows share a pair. For each
-- pair held more than once, the earliest registration (created_at, then id) keeps it: until the
-- later one arrived, the earlier org's tokens worked, so removing the later one restores what the
-- earlier org had and undoes exactly what the collision broke. The rows removed are not lost: they
-- are copied to `issuers_displaced` with when they were moved and which registration kept the pair,
-- for the operator to read (and, when the later org was the rightful one, to settle by hand by
-- deleting the kept row and re-registering). Their orgs' tokens for that pair had been refused
-- already (ambiguous), or reached only that org through its own JWKS; the latter stop working.
CREATE TABLE issuers_displaced (
  id           TEXT PRIMARY KEY,                -- the removed registration's iss_... id
  org_id       TEXT NOT NULL,
  jwks_url     TEXT NOT NULL,
  iss          TEXT NOT NULL,
  aud          TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  kept_id      TEXT NOT NULL,                   -- the registration that keeps the pair
  displaced_at INTEGER NOT NULL
);

INSERT INTO issuers_displaced (id, org_id, jwks_url, iss, aud, created_at, kept_id, displaced_at)
SELECT i.id, i.org_id, i.jwks_url, i.iss, i.aud, i.created_at,
       (SELECT k.id FROM issuers k WHERE k.iss = i.iss AND k.aud = i.aud ORDER BY k.created_at, k.id LIMIT 1),
       CAST(strftime('%s', 'now') AS INTEGER) * 1000
FROM issuers i
WHERE EXISTS (
  SELECT 1 FROM issuers e
  WHERE e.iss = i.iss AND e.aud = i.aud
    AND (e.created_at < i.created_at OR (e.created_at = i.created_at AND e.id < i.id))
);

DELETE FROM issuers WHERE id IN (SELECT id FROM issuers_displaced);

-- Unique across the installation; it also serves the lookup by iss, so the older index goes.
CREATE UNIQUE INDEX issuers_iss_aud ON issuers (iss, aud);
DROP INDEX issuers_iss;
