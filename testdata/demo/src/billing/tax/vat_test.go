package tax

import (
	"testing"

	"github.com/ledgerly/ledgerly/src/billing"
)

func TestLineVAT(t *testing.T) {
	de := Rate{"DE-standard", 1900}
	for _, tc := range []struct {
		net, want billing.Cents
	}{
		{13, 2},    // 2.47 → 2
		{50, 10},   // 9.5 → 10 (half away from zero)
		{-50, -10}, // credit notes round symmetrically
		{10000, 1900},
	} {
		if got := LineVAT(tc.net, de); got != tc.want {
			t.Errorf("LineVAT(%d) = %d, want %d", tc.net, got, tc.want)
		}
	}
}

func TestLineVATIsPerLine(t *testing.T) {
	// Three lines of 0.13 € at 19 %: 3 × 0.02 = 0.06, while 19 % of the
	// 0.39 total would be 0.07. The invoice shows 0.06.
	inv := &billing.Invoice{Status: billing.Draft, Country: "DE"}
	for i := 0; i < 3; i++ {
		inv.Lines = append(inv.Lines, billing.Line{Quantity: 1, UnitPrice: 13, VATRate: "DE-standard"})
	}
	if err := ApplyVAT(inv, "DE"); err != nil {
		t.Fatal(err)
	}
	if _, vat, _ := inv.Totals(); vat != 6 {
		t.Fatalf("VAT = %d, want 6", vat)
	}
}
