// Package export writes the nightly accounting export: one CSV per day with
// every invoice issued that day, picked up by finance's ERP from the SFTP drop.
package export

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"
)

// lockKey is the Postgres advisory lock held for the whole run, so two runs
// can never overlap (a CronJob may start twice around a node drain).
const lockKey = 724011

// utf8BOM makes Excel open the file as UTF-8 (customer names with umlauts).
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

var header = []string{"number", "issued_at", "customer", "currency", "net_cents", "vat_cents", "gross_cents"}

const query = `
SELECT i.number, i.issued_at, c.name, i.currency,
       SUM(l.quantity * l.unit_price_cents), SUM(l.vat_cents)
  FROM invoices i
  JOIN customers c ON c.id = i.customer_id
  JOIN invoice_lines l ON l.invoice_id = i.id
 WHERE i.status = 'issued' AND i.issued_at >= $1 AND i.issued_at < $2
 GROUP BY i.id, c.name
 ORDER BY i.number`

// Run writes the invoices issued on day (UTC) to w and returns how many it
// wrote. When another run holds the lock it writes nothing and returns 0, nil.
func Run(ctx context.Context, db *sql.DB, day time.Time, w io.Writer) (int, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("export: connect: %w", err)
	}
	defer conn.Close()

	var locked bool
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1)", lockKey).Scan(&locked); err != nil {
		return 0, fmt.Errorf("export: take lock: %w", err)
	}
	if !locked {
		slog.WarnContext(ctx, "export already running, skipping", "day", day.Format(time.DateOnly))
		return 0, nil
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockKey)

	return write(ctx, conn, day, w)
}

func write(ctx context.Context, conn *sql.Conn, day time.Time, w io.Writer) (int, error) {
	from := day.UTC().Truncate(24 * time.Hour)
	rows, err := conn.QueryContext(ctx, query, from, from.Add(24*time.Hour))
	if err != nil {
		return 0, fmt.Errorf("export: query %s: %w", from.Format(time.DateOnly), err)
	}
	defer rows.Close()

	if _, err := w.Write(utf8BOM); err != nil {
		return 0, err
	}
	cw := csv.NewWriter(w)
	cw.Comma = ';' // the ERP import expects semicolons
	if err := cw.Write(header); err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		var number, customer, currency string
		var issuedAt time.Time
		var net, vat int64
		if err := rows.Scan(&number, &issuedAt, &customer, &currency, &net, &vat); err != nil {
			return n, fmt.Errorf("export: scan: %w", err)
		}
		rec := []string{number, issuedAt.UTC().Format(time.RFC3339), customer, currency,
			strconv.FormatInt(net, 10), strconv.FormatInt(vat, 10), strconv.FormatInt(net+vat, 10)}
		if err := cw.Write(rec); err != nil {
			return n, err
		}
		n++
	}
	if err := rows.Err(); err != nil {
		return n, fmt.Errorf("export: rows: %w", err)
	}
	cw.Flush()
	return n, cw.Error()
}
