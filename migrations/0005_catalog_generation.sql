-- lessor D1 index, part 5: the offer cache's generation (issue 4, quote throughput).
-- One row. Every refresh writes a new random `generation` in the same batch as the offers it
-- replaces, so a generation names one state of the `offers` table. Isolates keep offers in memory
-- under the generation they read them with, and a quote is stored only while that generation is
-- still current (src/catalog/quote.ts). See docs/storage.md.
CREATE TABLE catalog (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  generation  TEXT NOT NULL
);
INSERT INTO catalog (id, generation) VALUES (1, 'initial');
