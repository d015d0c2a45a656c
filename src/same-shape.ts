/**
 * A compile-time check that what the code renders fits its response schema, field for field, so
 * the OpenAPI document cannot drift from the answers (STYLE.md rule 3):
 * `sameShape<z.infer<typeof OfferSchema>, ReturnType<typeof renderOffer>>(true)` fails to compile
 * when the rendered value gains or loses a field, or one no longer fits the schema's type. The
 * rendered value may be narrower (a literal union where the schema says string).
 */
export type SameShape<Schema, Rendered> = [Rendered] extends [Schema]
  ? [keyof Schema] extends [keyof Rendered]
    ? [keyof Rendered] extends [keyof Schema]
      ? true
      : false
    : false
  : false;

export function sameShape<Schema, Rendered>(ok: SameShape<Schema, Rendered>): void {
  void ok;
}
