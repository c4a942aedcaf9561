-- One row per order version; ReplacingMergeTree keeps the highest version of
-- each (appid, created_at, id), so a replayed or duplicated event is harmless.
-- The sort key is the listing's: one merchant, newest first. Types are those
-- both ClickHouse 18.16 and current releases know.
CREATE TABLE IF NOT EXISTS orders (
    appid String,
    created_at DateTime,
    id String,
    version UInt64,
    sandbox UInt8,
    client_order_id String,
    amount Int64,
    currency String,
    method String,
    status UInt8,
    description String,
    customer_name String,
    customer_email String,
    customer_phone String,
    notify_url String,
    return_url String,
    lang String,
    allowed_methods String,
    fiatpsp_system_id String,
    provider_url String,
    next_action String,
    qr_payload String,
    payable_amount String,
    paid_with_balance UInt8,
    created_ms UInt64,
    updated_ms UInt64,
    completed_ms UInt64,
    event_ms UInt64,
    inserted_at DateTime DEFAULT now()
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(created_at)
ORDER BY (appid, created_at, id)
