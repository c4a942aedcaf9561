-- Which merchant hours got an order version, and when: the projector writes
-- one row per (merchant, hour of creation) of each batch after the batch's
-- orders rows are confirmed, marked_ms being the projector's clock then. A
-- rollup of the hour is stale when a mark is at least as new as its as_of_ms.
-- Merges keep the newest mark of each hour.
CREATE TABLE IF NOT EXISTS report_marks (
    appid String,
    hour DateTime,
    marked_ms UInt64
) ENGINE = ReplacingMergeTree(marked_ms)
PARTITION BY toYYYYMM(hour)
ORDER BY (appid, hour)
