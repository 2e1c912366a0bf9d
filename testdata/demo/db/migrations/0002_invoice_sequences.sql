-- 0002_invoice_sequences: gap-free invoice numbers per year. A database
-- sequence is not gap-free (rolled-back transactions burn values), so the
-- counter is a row updated inside the issuing transaction.

CREATE TABLE invoice_sequences (
    year       INT PRIMARY KEY,
    last_value BIGINT NOT NULL
);
