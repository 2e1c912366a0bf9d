package api

// ConfirmInput is the input of drafts.confirm.
type ConfirmInput struct {
	DirInput
	ID          string   `json:"id,omitempty" jsonschema_description:"The entry that still holds (id, prefix, ADR number or path)."`
	IDs         []string `json:"ids,omitempty" jsonschema_description:"Several entries; more than five are written as bulk lines."`
	Because     string   `json:"because,omitempty" jsonschema_description:"One line (at most 500 characters) kept in the ledger."`
	Kind        string   `json:"kind,omitempty" jsonschema:"enum=read,enum=agent" jsonschema_description:"read when a person confirmed it in a client; agent (default) otherwise."`
	OperationID string   `json:"operation_id,omitempty" jsonschema_description:"Makes a retry return the first result (replayed: true) instead of a second ledger line."`
	Repair      bool     `json:"repair,omitempty" jsonschema_description:"Alone: rewrite checked of every active entry whose file lags its newest ledger confirmation; and restore missing status: superseded / superseded_by on entries that an active entry supersedes."`
	// MigrateLegacy writes bulk lines for entries whose only verification
	// is a checked date (kontext confirm --migrate-legacy).
	MigrateLegacy bool `json:"migrate_legacy,omitempty" jsonschema_description:"Alone: write bulk ledger lines for entries whose only verification is a checked date."`
}

// LedgerRecord is the ledger part of a confirmation result.
type LedgerRecord struct {
	At      string  `json:"at"`
	Kind    string  `json:"kind"`
	Commit  *string `json:"commit"`
	Because *string `json:"because"`
	Path    string  `json:"path"`
}

// Confirmation is the result of confirming one entry.
type Confirmation struct {
	ID      string       `json:"id"`
	Path    string       `json:"path"`
	Checked string       `json:"checked"`
	Ledger  LedgerRecord `json:"ledger"`
}

// ConfirmManyResult is drafts.confirm with ids.
type ConfirmManyResult struct {
	Confirmed []*Confirmation `json:"confirmed"`
	Failed    []FailedID      `json:"failed"`
}

// MigrateResult is drafts.confirm with migrate_legacy.
type MigrateResult struct {
	Migrated []LedgerRecord `json:"migrated"`
	Skipped  []Skipped      `json:"skipped"`
}

// FailedID is an id that could not be confirmed.
type FailedID struct {
	ID      string `json:"id"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// RepairResult is drafts.confirm {repair: true}.
type RepairResult struct {
	Repaired []Repaired `json:"repaired"`
	Skipped  []Skipped  `json:"skipped"`
	// SupersedesRepaired lists the entries whose files got back their
	// reciprocal supersede metadata (repair.go).
	SupersedesRepaired []SupersedeRepaired `json:"supersedes_repaired"`
}

// Repaired is one rewritten checked line.
type Repaired struct {
	ID   string  `json:"id"`
	Path string  `json:"path"`
	From *string `json:"from"`
	To   string  `json:"to"`
}

// Skipped is an entry repair left alone.
type Skipped struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}
