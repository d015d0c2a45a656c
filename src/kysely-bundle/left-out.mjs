/**
 * What the deployed Worker's kysely imports in place of two of its own modules (wrangler.toml
 * `alias`, keyed by the exact paths kysely's modules import them by): `withSchema` (a query's or
 * an expression builder's; with it, kysely's generic operation-node transformer, about 23 KB of
 * the bundle) and `mergeInto` (SQLite has no MERGE). kysely's query and expression builders
 * reference both whether called or not, so a bundler keeps them; lessor calls neither, and
 * test/unit/kysely-bundle.test.ts checks that it does not, and that these are the paths kysely
 * imports them by. Called anyway, each throws at once rather than build a wrong query.
 */
function leftOut(what) {
  return new Error(`kysely's ${what} is left out of lessor's bundle (src/kysely-bundle/left-out.mjs)`);
}

export class WithSchemaPlugin {
  constructor() {
    throw leftOut("withSchema");
  }
}

export class MergeQueryBuilder {
  constructor() {
    throw leftOut("mergeInto");
  }
}
