-- report_hourly again, with granules of 256 rows instead of 8,192: a report
-- reads one merchant's hours (2,160 in 90 days) of a table holding every
-- merchant's, and at 8,192 rows a granule the reader read a whole granule
-- of other merchants' rows (arrays and all) per part: at the bench's size
-- 147,456 rows read for 2,160 wanted, 32,768 once merged. Same columns and
-- meaning as report_hourly (docs/reporting.md), which nothing reads or
-- writes any more; the rollup job's first run after the upgrade fills this
-- one (reports fold live until it has). Types 18.16 knows.
CREATE TABLE IF NOT EXISTS report_cells (
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
SETTINGS index_granularity = 256
