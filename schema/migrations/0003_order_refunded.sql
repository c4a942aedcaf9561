-- What the order's succeeded refunds gave back (minor units), for the
-- listing. The default keeps the rows of earlier versions readable.
ALTER TABLE orders
    ADD COLUMN refunded_amount Int64 DEFAULT 0
