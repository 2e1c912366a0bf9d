// Package tax computes value-added tax for invoice lines.
package tax

import (
	"fmt"

	"github.com/ledgerly/ledgerly/src/billing"
)

// Rate is a VAT rate in basis points (1900 = 19 %).
type Rate struct {
	Code        string
	BasisPoints int64
}

var rates = map[string]Rate{
	"DE-standard":    {"DE-standard", 1900},
	"DE-reduced":     {"DE-reduced", 700},
	"AT-standard":    {"AT-standard", 2000},
	"CZ-standard":    {"CZ-standard", 2100},
	"reverse-charge": {"reverse-charge", 0},
}

// Lookup returns the rate for a rate code.
func Lookup(code string) (Rate, error) {
	r, ok := rates[code]
	if !ok {
		return Rate{}, fmt.Errorf("tax: unknown VAT rate %q", code)
	}
	return r, nil
}

// LineVAT returns the VAT of one line: net × rate, rounded half away from
// zero to whole cents. VAT is rounded per line and then summed; it is never
// computed on the invoice total.
func LineVAT(net billing.Cents, r Rate) billing.Cents {
	v := int64(net) * r.BasisPoints
	if v >= 0 {
		return billing.Cents((v + 5000) / 10000)
	}
	return billing.Cents((v - 5000) / 10000)
}

// ReverseCharge reports whether the buyer owes the VAT instead of us: a B2B
// sale to another EU country, and only when we hold the buyer's VAT id.
func ReverseCharge(sellerCountry string, inv *billing.Invoice) bool {
	return inv.BuyerVATID != "" && inv.Country != sellerCountry
}

// ApplyVAT fills in the VAT of every line of a draft invoice.
func ApplyVAT(inv *billing.Invoice, sellerCountry string) error {
	if inv.Status != billing.Draft {
		return billing.ErrNotDraft
	}
	rc := ReverseCharge(sellerCountry, inv)
	for i := range inv.Lines {
		l := &inv.Lines[i]
		if rc {
			l.VATRate = "reverse-charge"
		}
		r, err := Lookup(l.VATRate)
		if err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
		l.VAT = LineVAT(l.Net(), r)
	}
	return nil
}
