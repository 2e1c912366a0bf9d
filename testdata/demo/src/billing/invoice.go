package billing

import (
	"errors"
	"time"
)

// Status of an invoice. Issued invoices are immutable; corrections are
// made with a credit note, never by editing the invoice.
type Status string

const (
	Draft  Status = "draft"
	Issued Status = "issued"
	Void   Status = "void"
)

// ErrNotDraft is returned when a change is attempted on an issued invoice.
var ErrNotDraft = errors.New("billing: invoice is not a draft")

// Line is one invoice line. VAT is computed per line by package tax and
// stored, so a later change of the rounding never alters an issued invoice.
type Line struct {
	Description string
	Quantity    int64
	UnitPrice   Cents
	VATRate     string // rate code, e.g. "DE-standard"
	VAT         Cents
}

// Net is quantity × unit price.
func (l Line) Net() Cents { return Cents(l.Quantity) * l.UnitPrice }

// Invoice is a customer invoice in a single currency.
type Invoice struct {
	ID         string
	Number     string // assigned on issue, see FormatNumber
	CustomerID string
	BuyerVATID string // empty for consumers
	Country    string // buyer country, ISO 3166-1 alpha-2
	Currency   string // ISO 4217
	Status     Status
	IssuedAt   time.Time
	Lines      []Line
}

// Totals sums the stored line values; it never recomputes VAT.
func (inv *Invoice) Totals() (net, vat, gross Cents) {
	for _, l := range inv.Lines {
		net += l.Net()
		vat += l.VAT
	}
	return net, vat, net + vat
}

// Issue freezes a draft: it receives its legal number and can no longer change.
func (inv *Invoice) Issue(number string, now time.Time) error {
	if inv.Status != Draft {
		return ErrNotDraft
	}
	inv.Number = number
	inv.Status = Issued
	inv.IssuedAt = now.UTC()
	return nil
}
