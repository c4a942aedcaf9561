-- report_hourly (0025) gave way to report_cells (0031, the same columns in
-- granules of 256 rows); nothing has read or written it since. Its rows
-- are snapshots the rollup job makes again, so dropping it loses nothing.
DROP TABLE IF EXISTS report_hourly
