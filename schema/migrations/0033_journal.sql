-- The journal (docs/statements.md): one row per posting of every posted
-- transaction, copied from the shard journal streams. A transaction's key
-- (tx) and its line number name a posting for ever, so the replacing key
-- (appid, at, tx, line) folds a batch projected twice into one row; the
-- readers fold duplicates themselves (GROUP BY tx, line) until the merges
-- have. The sort key starts with the merchant: a statement is one range
-- read. Types 18.16 knows (no DateTime64, no LowCardinality, no TTL).
CREATE TABLE IF NOT EXISTS journal (
    appid String,
    at DateTime,
    tx String,
    line UInt16,
    entry String,
    kind String,
    ref String,
    account String,
    currency String,
    amount Int64,
    memo String,
    posted_by String,
    at_ms UInt64,
    inserted_at DateTime DEFAULT now()
) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(at)
ORDER BY (appid, at, tx, line)
