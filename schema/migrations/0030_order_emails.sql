-- The console's search by customer e-mail: one row per order that has one,
-- under its normalised address (schema.NormalEmail: trimmed, lower case),
-- written by the projector in the same flush as the order's rows. Sorted by
-- (merchant, address), so a search reads one granule here and then only the
-- orders granules holding the (created_at, id) found, whatever the
-- merchant's size; the orders table's key cannot serve it (the address is
-- not in its key). A replayed row is the same row and merges fold it;
-- readers only ask which orders, so a duplicate changes no answer.
-- Created from the orders already projected (lowerUTF8 of the trimmed
-- address: what NormalEmail gives for every address but a few exotic
-- Unicode case pairs). On a cluster each shard's copy is filled from its
-- own orders_local (the lookup is sharded by the orders' key).
CREATE TABLE IF NOT EXISTS order_emails
ENGINE = ReplacingMergeTree()
ORDER BY (appid, email, created_at, id)
AS SELECT appid, lowerUTF8(replaceRegexpAll(customer_email, '^\\s+|\\s+$', '')) AS email, created_at, id
FROM orders
WHERE customer_email != ''
GROUP BY appid, email, created_at, id
