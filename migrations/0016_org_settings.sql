-- lessor D1 index, part 16: an org's settings (docs/storage.md `orgs`). require_image_digest: a
-- lease (and a validate) whose image is not pinned by `@sha256:` is refused with image_not_pinned.

ALTER TABLE orgs ADD COLUMN require_image_digest INTEGER NOT NULL DEFAULT 0 CHECK (require_image_digest IN (0, 1));
