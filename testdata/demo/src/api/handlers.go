// Package api serves the JSON API under /v1.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/ledgerly/ledgerly/src/billing"
	"github.com/ledgerly/ledgerly/src/billing/tax"
)

// ErrNotFound is returned by an InvoiceStore for an unknown id.
var ErrNotFound = errors.New("not found")

// InvoiceStore is the persistence the handlers need.
type InvoiceStore interface {
	Get(ctx context.Context, id string) (*billing.Invoice, error)
	// Issue assigns the next number and saves the invoice in one transaction.
	Issue(ctx context.Context, inv *billing.Invoice, now time.Time, number func(seq int64) string) error
}

// Handler holds the API's dependencies.
type Handler struct {
	Invoices      InvoiceStore
	SellerCountry string
	NumberPrefix  string
	Now           func() time.Time
}

// Routes registers the handlers on mux.
func (h *Handler) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /v1/invoices/{id}", h.getInvoice)
	mux.HandleFunc("POST /v1/invoices/{id}/issue", h.issueInvoice)
}

func (h *Handler) getInvoice(w http.ResponseWriter, r *http.Request) {
	inv, ok := h.load(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, toJSON(inv))
}

func (h *Handler) issueInvoice(w http.ResponseWriter, r *http.Request) {
	inv, ok := h.load(w, r)
	if !ok {
		return
	}
	if inv.Status != billing.Draft {
		writeProblem(w, http.StatusConflict, "invoice-not-draft", "Invoice is not a draft",
			"Issued invoices cannot change; create a credit note instead.")
		return
	}
	if err := tax.ApplyVAT(inv, h.SellerCountry); err != nil {
		writeProblem(w, http.StatusUnprocessableEntity, "invalid-vat-rate", "Invalid VAT rate", err.Error())
		return
	}
	now := h.Now()
	err := h.Invoices.Issue(r.Context(), inv, now, func(seq int64) string {
		return billing.FormatNumber(h.NumberPrefix, now.Year(), seq)
	})
	if err == nil {
		err = inv.Issue(inv.Number, now)
	}
	if err != nil {
		slog.ErrorContext(r.Context(), "issue invoice", "invoice", inv.ID, "err", err)
		writeProblem(w, http.StatusInternalServerError, "internal", "Internal error", "")
		return
	}
	writeJSON(w, http.StatusOK, toJSON(inv))
}

func (h *Handler) load(w http.ResponseWriter, r *http.Request) (*billing.Invoice, bool) {
	inv, err := h.Invoices.Get(r.Context(), r.PathValue("id"))
	switch {
	case errors.Is(err, ErrNotFound):
		writeProblem(w, http.StatusNotFound, "invoice-not-found", "Invoice not found", "")
		return nil, false
	case err != nil:
		slog.ErrorContext(r.Context(), "load invoice", "err", err)
		writeProblem(w, http.StatusInternalServerError, "internal", "Internal error", "")
		return nil, false
	}
	return inv, true
}

type invoiceJSON struct {
	ID       string `json:"id"`
	Number   string `json:"number,omitempty"`
	Status   string `json:"status"`
	Currency string `json:"currency"`
	Net      int64  `json:"net_cents"`
	VAT      int64  `json:"vat_cents"`
	Gross    int64  `json:"gross_cents"`
}

func toJSON(inv *billing.Invoice) invoiceJSON {
	net, vat, gross := inv.Totals()
	return invoiceJSON{inv.ID, inv.Number, string(inv.Status), inv.Currency, int64(net), int64(vat), int64(gross)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
