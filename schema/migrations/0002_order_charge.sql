-- What the provider charges when it is not the order's own amount (a USD
-- order charged in BDT at the rate recorded at initialisation), the
-- provider's id of the payment and the cryptopsp payer's choice. Defaults
-- keep the rows of earlier versions readable.
ALTER TABLE orders
    ADD COLUMN pay_currency String DEFAULT '',
    ADD COLUMN charge_amount Int64 DEFAULT 0,
    ADD COLUMN charge_currency String DEFAULT '',
    ADD COLUMN fx_rate String DEFAULT '',
    ADD COLUMN provider_ref String DEFAULT ''
