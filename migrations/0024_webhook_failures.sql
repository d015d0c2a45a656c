-- lessor D1 index, part 24: how many attempts to a webhook endpoint have failed in a row since its
-- last delivery (docs/events.md "Disabling"); MAX_CONSECUTIVE_FAILURES of them disable it.
-- See docs/storage.md `webhook_endpoints`.

ALTER TABLE webhook_endpoints ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0);
