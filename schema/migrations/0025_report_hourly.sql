-- Per merchant and hour of creation, the orders of that hour folded to their
-- latest version and counted per (method, currency, status) cell, as one row
-- of parallel arrays (so one row is one atomic snapshot of the hour). A row
-- is written by the rollup job (projector/rollup.go) for hours older than the
-- open window, again whenever a mark says an order of the hour changed;
-- as_of_ms is when that fold began minus a clock margin. Readers take the
-- row with the highest as_of_ms (argMax) and trust it only if no mark of the
-- hour is as new (docs/reporting.md). c_times holds each paid cell's
-- create-to-paid times in ms, for exact quantiles. Types 18.16 knows.
CREATE TABLE IF NOT EXISTS report_hourly (
    appid String,
    hour DateTime,
    as_of_ms UInt64,
    c_method Array(String),
    c_currency Array(String),
    c_status Array(UInt8),
    c_orders Array(UInt64),
    c_amount Array(Int64),
    c_refunded Array(Int64),
    c_times Array(Array(Int64))
) ENGINE = ReplacingMergeTree(as_of_ms)
PARTITION BY toYYYYMM(hour)
ORDER BY (appid, hour)
