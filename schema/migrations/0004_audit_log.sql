-- The audit log (package audit), projected from the audit streams. One row
-- per stream entry: id is "<stream>/<entry id>", so a replayed entry is the
-- same row and ReplacingMergeTree folds it (readers use FINAL). Sorted by
-- time, which every search bounds. Types both 18.16 and current know.
CREATE TABLE IF NOT EXISTS audit_log (
    at DateTime,
    at_ms UInt64,
    id String,
    actor_id String,
    actor_email String,
    realm String,
    role String,
    action String,
    target String,
    appid String,
    source String,
    details String,
    inserted_at DateTime DEFAULT now()
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(at)
ORDER BY (at, id)
