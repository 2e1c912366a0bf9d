-- 0001_init: base schema (PostgreSQL). Money columns are BIGINT minor units
-- and end in _cents. Migrations are forward-only: never edit a released file.

CREATE TABLE customers (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    country      CHAR(2) NOT NULL,
    vat_id       TEXT,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE invoices (
    id           TEXT PRIMARY KEY,
    number       TEXT UNIQUE,
    customer_id  TEXT NOT NULL REFERENCES customers (id),
    buyer_vat_id TEXT,
    country      CHAR(2) NOT NULL,
    currency     CHAR(3) NOT NULL,
    status       TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'issued', 'void')),
    issued_at    TIMESTAMPTZ
);

CREATE INDEX invoices_issued_at ON invoices (issued_at) WHERE status = 'issued';

CREATE TABLE invoice_lines (
    invoice_id       TEXT NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
    position         INT NOT NULL,
    description      TEXT NOT NULL,
    quantity         BIGINT NOT NULL CHECK (quantity > 0),
    unit_price_cents BIGINT NOT NULL,
    vat_rate         TEXT NOT NULL,
    vat_cents        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (invoice_id, position)
);

CREATE TABLE sessions (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL,
    last_seen_at TIMESTAMPTZ NOT NULL
);

CREATE INDEX sessions_last_seen_at ON sessions (last_seen_at);
