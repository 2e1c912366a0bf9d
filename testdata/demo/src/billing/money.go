// Package billing holds invoices, their lines and the money arithmetic
// behind them.
package billing

import "fmt"

// Cents is an amount in the minor unit of the invoice currency
// (euro cents for EUR). Money is never a float.
type Cents int64

// String renders c with two fraction digits and no grouping ("1234.50").
// Locale-aware formatting belongs to the UI.
func (c Cents) String() string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}
