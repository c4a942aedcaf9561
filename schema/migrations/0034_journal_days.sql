-- A merchant's journal by UTC day (docs/statements.md): per currency and
-- transaction kind, what the day's postings changed the merchant's buckets
-- by and what they paid in fees, settlements left out (they only move
-- money between buckets). The journal projection recomputes a day whole
-- from the journal table (folding duplicate rows) after each batch that
-- touched it and before acknowledging the batch, under a higher version
-- each time; readers take each key's highest version. A month's statement
-- then reads about a hundred rows instead of millions. day counts days
-- since 1970-01-01 UTC, free of the server's time zone. Types 18.16 knows.
CREATE TABLE IF NOT EXISTS journal_days (
    appid String,
    day UInt32,
    currency String,
    kind String,
    merchant Int64,
    fees Int64,
    postings UInt64,
    version UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY intDiv(day, 366)
ORDER BY (appid, day, currency, kind)
