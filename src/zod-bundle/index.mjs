/**
 * What the deployed Worker imports for "zod" (wrangler.toml `alias`): zod's own modules, exported
 * as zod exports them, less its error messages in every language but English (`z.locales`, about
 * 360 KB of the bundle). @hono/zod-openapi hands the whole `z` namespace to zod-to-openapi, so a
 * bundler keeps every member of it, used or not; this namespace has no `locales` to keep. Nothing
 * in lessor sets a locale; English stays the default (zod's classic schemas register it). Also
 * left out, unused by lessor: `compile` (zod's parser compiler, with `compileFn`, `withParser`,
 * `INVALID` and its errors) and `fromJSONSchema`, about 45 KB; and `z.core`, the namespace of
 * zod's internals (its `$Zod...` classes, checks and schema constructors), about 8 KB minified:
 * zod's own modules import these directly, and neither lessor nor @hono/zod-openapi nor
 * zod-to-openapi reads `z.core`. Mirrors node_modules/zod/index.js
 * for the pinned zod version; test/unit/zod-bundle.test.ts checks that it exports all of zod's
 * exports but these, and that lessor uses none of them.
 */
import * as z from "./external.mjs";
export * from "./external.mjs";
export { z, z as default };
