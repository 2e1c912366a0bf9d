package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ledgerly/ledgerly/src/api"
	"github.com/ledgerly/ledgerly/src/billing"
)

type store struct{ db *sql.DB }

func newStore(db *sql.DB) *store { return &store{db: db} }

func (s *store) Get(ctx context.Context, id string) (*billing.Invoice, error) {
	inv := &billing.Invoice{ID: id}
	err := s.db.QueryRowContext(ctx, `
		SELECT coalesce(number, ''), customer_id, coalesce(buyer_vat_id, ''), country, currency, status
		  FROM invoices WHERE id = $1`, id).
		Scan(&inv.Number, &inv.CustomerID, &inv.BuyerVATID, &inv.Country, &inv.Currency, &inv.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, api.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get invoice %s: %w", id, err)
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT description, quantity, unit_price_cents, vat_rate, vat_cents
		  FROM invoice_lines WHERE invoice_id = $1 ORDER BY position`, id)
	if err != nil {
		return nil, fmt.Errorf("get lines %s: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var l billing.Line
		if err := rows.Scan(&l.Description, &l.Quantity, &l.UnitPrice, &l.VATRate, &l.VAT); err != nil {
			return nil, fmt.Errorf("scan line: %w", err)
		}
		inv.Lines = append(inv.Lines, l)
	}
	return inv, rows.Err()
}

// Issue takes the next number of the year from invoice_sequences and stores
// the number and the line VAT in the same transaction (gap-free numbering).
// Timestamps come from Go, not from SQL, so tests control the clock.
func (s *store) Issue(ctx context.Context, inv *billing.Invoice, now time.Time, number func(seq int64) string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	var seq int64
	err = tx.QueryRowContext(ctx, `
		INSERT INTO invoice_sequences (year, last_value) VALUES ($1, 1)
		ON CONFLICT (year) DO UPDATE SET last_value = invoice_sequences.last_value + 1
		RETURNING last_value`, now.Year()).Scan(&seq)
	if err != nil {
		return fmt.Errorf("next invoice number: %w", err)
	}
	inv.Number = number(seq)
	for i, l := range inv.Lines {
		if _, err := tx.ExecContext(ctx, `UPDATE invoice_lines SET vat_rate = $1, vat_cents = $2
			WHERE invoice_id = $3 AND position = $4`, l.VATRate, l.VAT, inv.ID, i+1); err != nil {
			return fmt.Errorf("store line VAT: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE invoices SET number = $1, status = 'issued', issued_at = $2
		WHERE id = $3 AND status = 'draft'`, inv.Number, now.UTC(), inv.ID); err != nil {
		return fmt.Errorf("issue invoice: %w", err)
	}
	return tx.Commit()
}
