#!/usr/bin/env bash
# demo-repo.sh — build the kontext demo repository ("ledgerly") as a real git
# repository with a deterministic history.
#
#   build/demo-repo.sh [--force] DEST
#
# The final tree is testdata/demo/. The history is replayed commit by commit:
# `take` copies a file's final version from testdata/demo, `old` writes an
# earlier version (inline below), `confirm` appends a line to the verification
# ledger (.ai/confirmations.log) for the then-current HEAD. Author, committer
# and dates are fixed, so every run produces the same commit ids.
#
# What the history demonstrates (see README.md of the demo):
#   - 2026-01-12-money-is-integer-cents and 2026-01-14-vat-is-rounded-per-line
#     are confirmed after the last change of their governed files: no drift;
#   - 2026-04-14-nightly-export-is-a-cronjob is confirmed, then
#     src/export/nightly.go changes (the advisory-lock fix): it drifts. An
#     earlier change to src/export/testdata/ does not count (excluded by "!").
#
# Needs git >= 2.32 (GIT_CONFIG_GLOBAL); no network.
set -euo pipefail

usage() {
	echo "usage: $0 [--force] DEST" >&2
	exit 2
}

force=0
dest=""
for arg in "$@"; do
	case "$arg" in
	--force) force=1 ;;
	-h | --help) usage ;;
	-*)
		echo "error: unknown option $arg" >&2
		usage
		;;
	*)
		[ -z "$dest" ] || usage
		dest=$arg
		;;
	esac
done
[ -n "$dest" ] || usage

SRC=$(cd "$(dirname "$0")/../testdata/demo" && pwd -P)

if [ -e "$dest" ] || [ -L "$dest" ]; then
	if [ -d "$dest" ] && [ -z "$(ls -A -- "$dest")" ]; then
		: # an empty directory is fine
	elif [ "$force" = 1 ]; then
		abs=$(cd "$dest" 2>/dev/null && pwd -P || echo "$dest")
		case "$SRC/" in
		"$abs"/*)
			echo "error: refusing to remove $dest: it contains the demo sources" >&2
			exit 1
			;;
		esac
		if [ "$abs" = / ] || [ "$abs" = "$HOME" ]; then
			echo "error: refusing to remove $dest" >&2
			exit 1
		fi
		rm -rf -- "$dest"
	else
		echo "error: $dest exists and is not empty (use --force to replace it)" >&2
		exit 1
	fi
fi
mkdir -p -- "$dest"
DEST=$(cd "$dest" && pwd -P)

# A clean, reproducible git environment: no user/system config, no inherited
# repository, fixed identity. Dates are set per commit.
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_NAMESPACE GIT_CEILING_DIRECTORIES \
	GIT_TEMPLATE_DIR GIT_CONFIG GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT \
	GIT_AUTHOR_DATE GIT_COMMITTER_DATE
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="Demo Dev" GIT_AUTHOR_EMAIL="demo@example.com"
export GIT_COMMITTER_NAME="Demo Dev" GIT_COMMITTER_EMAIL="demo@example.com"
export TZ=UTC LC_ALL=C
umask 022

g() { git -C "$DEST" "$@"; }

# take PATH... — copy the final version of files or directories from testdata/demo.
take() {
	local p
	for p in "$@"; do
		if [ -d "$SRC/$p" ]; then
			mkdir -p "$DEST/$p"
			cp -R "$SRC/$p/." "$DEST/$p/"
		elif [ -f "$SRC/$p" ]; then
			mkdir -p "$DEST/$(dirname "$p")"
			cp "$SRC/$p" "$DEST/$p"
		else
			echo "error: $SRC/$p does not exist" >&2
			exit 1
		fi
	done
}

# old PATH — write an earlier version of PATH, read from stdin.
old() {
	mkdir -p "$DEST/$(dirname "$1")"
	cat >"$DEST/$1"
}

# commit DATE SUBJECT [BODY] — commit everything in the working tree.
commit() {
	g add -A
	GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" g commit -q -m "$2" ${3:+-m "$3"}
	printf '  %s  %s  %s\n' "$(g rev-parse --short HEAD)" "${1%%T*}" "$2"
}

# confirm AT ID BECAUSE — append a ledger line ("read" confirmation) for HEAD.
confirm() {
	printf '{"at":"%s","kind":"read","id":"%s","commit":"%s","by":"Demo Dev","because":"%s"}\n' \
		"$1" "$2" "$(g rev-parse HEAD)" "$3" >>"$DEST/.ai/confirmations.log"
}

git init -q -b main "$DEST"
echo "building demo repository in $DEST"

# --- 1. 2024-05: the pilot, on SQLite, with an adr-tools log ---------------------

take .gitignore .adr-dir src/billing/money.go src/billing/invoice.go \
	src/billing/numbering.go src/api web \
	cmd/ledgerly/store.go db/migrations/0002_invoice_sequences.sql \
	docs/adr/0001-record-architecture-decisions.md \
	docs/adr/0002-write-the-service-in-go.md docs/adr/template.md

old go.mod <<'EOF'
module github.com/ledgerly/ledgerly

go 1.22

require modernc.org/sqlite v1.29.9
EOF

old README.md <<'EOF'
# ledgerly

A small invoicing service: it issues invoices with correct VAT, keeps invoice
numbers gap-free per year, and hands finance a nightly CSV export for the ERP.

## Running

    export DATABASE_URL=./ledgerly.db
    go run ./cmd/ledgerly          # API on :8080, nightly export at 02:00 UTC
    cd web && npm install && npm run dev

Architecture decisions are recorded in `docs/adr/` (adr-tools).
EOF

old cmd/ledgerly/db.go <<'EOF'
package main

// The pure-Go SQLite driver (no cgo); DATABASE_URL is a file path.
import _ "modernc.org/sqlite"

const driverName = "sqlite"
EOF

old cmd/ledgerly/main.go <<'EOF'
// Command ledgerly runs the HTTP API and the nightly export.
package main

import (
	"context"
	"database/sql"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ledgerly/ledgerly/src/api"
	"github.com/ledgerly/ledgerly/src/export"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	db, err := sql.Open(driverName, os.Getenv("DATABASE_URL"))
	if err != nil {
		slog.Error("open database", "err", err)
		os.Exit(1)
	}
	defer db.Close()

	go export.StartTicker(ctx, db, "/var/lib/ledgerly/export")

	mux := http.NewServeMux()
	h := &api.Handler{
		Invoices:      newStore(db),
		SellerCountry: "DE",
		NumberPrefix:  "LG",
		Now:           time.Now,
	}
	h.Routes(mux)

	srv := &http.Server{Addr: ":8080", Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	slog.Info("listening", "addr", srv.Addr)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		slog.Error("serve", "err", err)
		os.Exit(1)
	}
}
EOF

old src/billing/tax/vat.go <<'EOF'
// Package tax computes value-added tax for invoice lines.
package tax

import (
	"fmt"
	"math"

	"github.com/ledgerly/ledgerly/src/billing"
)

// Rate is a VAT rate in percent.
type Rate struct {
	Code    string
	Percent float64
}

var rates = map[string]Rate{
	"DE-standard":    {"DE-standard", 19},
	"DE-reduced":     {"DE-reduced", 7},
	"AT-standard":    {"AT-standard", 20},
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

// ApplyVAT fills in the VAT of every line of a draft invoice. Sales into
// another country are reverse charge.
func ApplyVAT(inv *billing.Invoice, sellerCountry string) error {
	if inv.Status != billing.Draft {
		return billing.ErrNotDraft
	}
	for i := range inv.Lines {
		l := &inv.Lines[i]
		if inv.Country != sellerCountry {
			l.VATRate = "reverse-charge"
		}
		r, err := Lookup(l.VATRate)
		if err != nil {
			return fmt.Errorf("line %d: %w", i+1, err)
		}
		l.VAT = billing.Cents(math.Round(float64(l.Net()) * r.Percent / 100))
	}
	return nil
}
EOF

old src/export/nightly.go <<'EOF'
// Package export writes the nightly accounting export: one CSV per day with
// every invoice issued that day, picked up by finance's ERP.
package export

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

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

// StartTicker exports yesterday's invoices into dir every night at 02:00 UTC
// until ctx is done.
func StartTicker(ctx context.Context, db *sql.DB, dir string) {
	for {
		now := time.Now().UTC()
		next := now.Truncate(24 * time.Hour).Add(2 * time.Hour)
		if !next.After(now) {
			next = next.Add(24 * time.Hour)
		}
		select {
		case <-ctx.Done():
			slog.Info("export ticker stopped")
			return
		case <-time.After(next.Sub(now)):
		}
		day := next.AddDate(0, 0, -1)
		if err := exportDay(ctx, db, day, dir); err != nil {
			slog.Error("nightly export", "day", day.Format(time.DateOnly), "err", err)
		}
	}
}

func exportDay(ctx context.Context, db *sql.DB, day time.Time, dir string) error {
	name := filepath.Join(dir, "ledgerly-"+day.Format(time.DateOnly)+".csv")
	f, err := os.Create(name + ".part")
	if err != nil {
		return err
	}
	defer f.Close()

	from := day.Truncate(24 * time.Hour)
	rows, err := db.QueryContext(ctx, query, from, from.Add(24*time.Hour))
	if err != nil {
		return fmt.Errorf("export: query: %w", err)
	}
	defer rows.Close()

	cw := csv.NewWriter(f)
	if err := cw.Write(header); err != nil {
		return err
	}
	for rows.Next() {
		var number, customer, currency string
		var issuedAt time.Time
		var net, vat int64
		if err := rows.Scan(&number, &issuedAt, &customer, &currency, &net, &vat); err != nil {
			return fmt.Errorf("export: scan: %w", err)
		}
		if err := cw.Write([]string{number, issuedAt.UTC().Format(time.RFC3339), customer, currency,
			strconv.FormatInt(net, 10), strconv.FormatInt(vat, 10), strconv.FormatInt(net+vat, 10)}); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export: rows: %w", err)
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return os.Rename(name+".part", name)
}
EOF

old db/migrations/0001_init.sql <<'EOF'
-- 0001_init: base schema (SQLite). Money columns are INTEGER minor units
-- and end in _cents.

CREATE TABLE customers (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    country      TEXT NOT NULL,
    vat_id       TEXT,
    created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TABLE invoices (
    id           TEXT PRIMARY KEY,
    number       TEXT UNIQUE,
    customer_id  TEXT NOT NULL REFERENCES customers (id),
    buyer_vat_id TEXT,
    country      TEXT NOT NULL,
    currency     TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'issued', 'void')),
    issued_at    TEXT
);

CREATE TABLE invoice_lines (
    invoice_id       TEXT NOT NULL REFERENCES invoices (id) ON DELETE CASCADE,
    position         INTEGER NOT NULL,
    description      TEXT NOT NULL,
    quantity         INTEGER NOT NULL CHECK (quantity > 0),
    unit_price_cents INTEGER NOT NULL,
    vat_rate         TEXT NOT NULL,
    vat_cents        INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (invoice_id, position)
);
EOF

# ADR 3 was accepted at first; ADR 5 supersedes it later.
sed 's/^Superseded by \[5\. .*$/Accepted/' "$SRC/docs/adr/0003-use-sqlite-for-storage.md" \
	>"$DEST/docs/adr/0003-use-sqlite-for-storage.md"
head -n 5 "$SRC/docs/adr/README.md" >"$DEST/docs/adr/README.md"

commit 2024-05-13T09:12:00+00:00 "Initial ledgerly pilot: invoices, VAT, API, nightly export" \
	"Storage is SQLite for the pilot (ADR 3). Decisions are kept with adr-tools in docs/adr."

# --- 2. 2025-02: PostgreSQL, server-side sessions ------------------------------

take go.mod cmd/ledgerly/db.go db/migrations/0001_init.sql src/auth \
	docs/adr/0003-use-sqlite-for-storage.md docs/adr/0004-keep-sessions-server-side.md \
	docs/adr/0005-use-postgresql-for-storage.md docs/adr/README.md
commit 2025-02-10T14:30:00+00:00 "Move storage to PostgreSQL; keep sessions server-side" \
	"ADR 5 supersedes ADR 3. The schema is re-based for PostgreSQL; SQL in the code was already portable."

# --- 3. 2026-01: adopt kontext ---------------------------------------------------

take .kontext.toml \
	.ai/decisions/2026-01-12-money-is-integer-cents.md \
	.ai/decisions/2026-01-14-vat-is-rounded-per-line.md \
	.ai/decisions/2026-01-19-api-errors-are-problem-json.md \
	.ai/conventions/2026-01-20-invoice-numbering-frozen-for-audit.md
# Both are retired later in the history; here they are still current.
sed -e 's/^status: superseded$/status: accepted/' -e '/^superseded_by:/d' \
	"$SRC/.ai/decisions/2026-01-12-export-runs-in-api-process.md" \
	>"$DEST/.ai/decisions/2026-01-12-export-runs-in-api-process.md"
mkdir -p "$DEST/.ai/conventions"
awk '/^\*\*Deprecated/ { exit } { buf = buf $0 "\n" } END { sub(/\n+$/, "\n", buf); printf "%s", buf }' \
	"$SRC/.ai/conventions/2026-01-15-background-jobs-stop-within-10s.md" |
	sed 's/^status: deprecated$/status: active/' \
		>"$DEST/.ai/conventions/2026-01-15-background-jobs-stop-within-10s.md"
commit 2026-01-20T10:05:00+00:00 "chore: adopt kontext for project knowledge" \
	"New decisions go to .ai/decisions; the ADR log in docs/adr stays and is read as decisions too."

# --- 4. the VAT fix the decision asked for ------------------------------------

take src/billing/tax/vat.go src/billing/tax/vat_test.go \
	.ai/learnings/2026-01-23-reverse-charge-needs-the-buyer-vat-id.md
commit 2026-01-26T16:40:00+00:00 "fix(tax): integer VAT math rounded per line; reverse charge needs a VAT id"

# --- 5. confirm the money and VAT decisions after the fix -> no drift later -----

confirm 2026-02-02T09:28:11Z 2026-01-12-money-is-integer-cents "checked against the per-line VAT fix"
confirm 2026-02-02T09:29:40Z 2026-01-14-vat-is-rounded-per-line "checked against the per-line VAT fix; tests cover the 0.13 EUR example"
commit 2026-02-02T09:30:00+00:00 "chore(kontext): confirm money and VAT decisions"

# --- 6. the export moves to a CronJob (supersedes the in-process decision) -----

take cmd/ledgerly/main.go cmd/export deploy \
	.ai/decisions/2026-01-12-export-runs-in-api-process.md \
	.ai/decisions/2026-04-14-nightly-export-is-a-cronjob.md
old src/export/nightly.go <<'EOF'
// Package export writes the nightly accounting export: one CSV per day with
// every invoice issued that day, picked up by finance's ERP from the SFTP drop.
package export

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"
)

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
// wrote. Overlapping runs are prevented by the CronJob (concurrencyPolicy: Forbid).
func Run(ctx context.Context, db *sql.DB, day time.Time, w io.Writer) (int, error) {
	from := day.UTC().Truncate(24 * time.Hour)
	rows, err := db.QueryContext(ctx, query, from, from.Add(24*time.Hour))
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
EOF
old src/export/testdata/invoices.golden.csv <<'EOF'
number;issued_at;customer;currency;net_cents;vat_cents;gross_cents
LG-2026-000101;2026-04-13T08:02:11Z;Brightline Studio;EUR;120000;22800;142800
LG-2026-000102;2026-04-13T09:47:30Z;Kavka s.r.o.;EUR;49900;0;49900
EOF
commit 2026-04-14T11:20:00+00:00 "feat(export): run the nightly export as a Kubernetes CronJob" \
	"cmd/export is a one-shot binary; the API server no longer starts the ticker.
Supersedes decision 2026-01-12-export-runs-in-api-process."

# --- 7. confirm the CronJob decision (it drifts after step 9) ------------------

confirm 2026-04-20T08:47:30Z 2026-04-14-nightly-export-is-a-cronjob "matches cmd/export and deploy/cronjob-export.yaml after the first week of runs"
commit 2026-04-20T08:50:00+00:00 "chore(kontext): confirm the CronJob export decision"

# --- 8. test data only: excluded by "!src/export/testdata/**" -------------------

take src/export/testdata/invoices.golden.csv
commit 2026-06-09T13:15:00+00:00 "test(export): cover umlauts and reverse charge in the golden file"

# --- 9. the incident fix: governed code changes after the confirmation ---------

take src/export/nightly.go
commit 2026-08-24T17:05:00+00:00 "fix(export): skip a run when another one holds the lock" \
	"A retried Job pod can overlap with its terminating predecessor; concurrencyPolicy: Forbid
does not prevent that. Take a Postgres advisory lock for the whole run."

# --- 10. write down what we know ----------------------------------------------

take .ai/conventions .ai/learnings .ai/incidents .ai/architecture
commit 2026-09-02T10:00:00+00:00 "docs(kontext): conventions, learnings, incidents and architecture notes" \
	"Deprecates the background-jobs convention: the API no longer runs background jobs."

# --- 11. rules for coding agents -------------------------------------------------

take .cursor README.md
commit 2026-10-05T15:45:00+00:00 "chore: add Cursor rules for coding agents; describe the knowledge layout"

# --- 12. an open proposal ---------------------------------------------------------

take .ai/decisions/2026-11-16-move-sessions-to-redis.md
commit 2026-11-16T09:10:00+00:00 "docs(decision): propose moving sessions to Redis"

# --- the result must be exactly testdata/demo, committed and clean ------------------

if ! cmp -s "$SRC/.ai/confirmations.log" "$DEST/.ai/confirmations.log"; then
	echo "error: the ledger built here differs from testdata/demo/.ai/confirmations.log" >&2
	echo "       (commit ids change when a file of an earlier step changes)." >&2
	echo "       If that change was intended, refresh it with:" >&2
	echo "       cp '$DEST/.ai/confirmations.log' '$SRC/.ai/confirmations.log'" >&2
	diff "$SRC/.ai/confirmations.log" "$DEST/.ai/confirmations.log" >&2 || true
	exit 1
fi
if ! diff -r -x .git "$SRC" "$DEST" >&2; then
	echo "error: the built tree differs from testdata/demo (a file is missing from the steps above?)" >&2
	exit 1
fi
if [ -n "$(g status --porcelain)" ]; then
	g status --short >&2
	echo "error: the built repository is not clean" >&2
	exit 1
fi
# The team's shared branch: origin/main stands where the CronJob decision was
# confirmed, and this checkout is five commits ahead of it — like a branch
# under review. (A remote-tracking ref only: nothing is ever fetched.)
g update-ref refs/remotes/origin/main "$(g rev-parse HEAD~5)"
g symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main
echo "done: $DEST at $(g rev-parse HEAD)"
