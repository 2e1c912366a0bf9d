package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

// First answers that teach: an empty answer says why it is empty and
// names the human command that changes it (never an API operation).

// printEmptyHint explains an answer in which no entry governs the paths:
// knowledge kontext does not read yet (status' adoption hint), or entries
// that have no paths and so govern nothing ("45 decisions have no
// paths"), with the command that suggests paths for them. It writes
// nothing when neither is the case.
func printEmptyHint(ctx context.Context, g *factory, w io.Writer) {
	if printAdoptionHintOf(ctx, g, w) {
		return
	}
	e, err := g.engine()
	if err != nil {
		return
	}
	if st, err := e.Read(ctx); err == nil {
		if note := engine.UnscopedNote(st.Unscoped()); note != "" {
			fmt.Fprintln(w, note)
		}
	}
}

// printAdoptionHintOf prints status' adoption hint (knowledge kontext
// does not read yet, and kontext setup --detect) when there is one.
func printAdoptionHintOf(ctx context.Context, g *factory, w io.Writer) bool {
	s, err := g.status(ctx)
	if err != nil || s.Hint == nil {
		return false
	}
	printAdoptionHint(w, s)
	return true
}

// diagnosticCounts says how many diagnostics there are at each level:
// warnings and errors are "diagnostics", info ones "notes" (an inferred
// link is no problem to fix). "" when there are none.
func diagnosticCounts(diags []api.Diagnostic) string {
	problems, errs, notes := 0, 0, 0
	for _, d := range diags {
		switch d.Severity {
		case "info":
			notes++
		case "error":
			errs++
			problems++
		default:
			problems++
		}
	}
	var parts []string
	if problems > 0 {
		p := fmt.Sprintf("%d %s", problems, plural(problems, "diagnostic", "diagnostics"))
		if errs > 0 {
			p += fmt.Sprintf(" (%d %s)", errs, plural(errs, "error", "errors"))
		}
		parts = append(parts, p)
	}
	if notes > 0 {
		parts = append(parts, fmt.Sprintf("%d %s (info)", notes, plural(notes, "note", "notes")))
	}
	return strings.Join(parts, ", ")
}

// ciCommandFor is the command that lists diags: kontext ci shows
// warnings and errors, and info notes only with --verbose.
func ciCommandFor(diags []api.Diagnostic) string {
	for _, d := range diags {
		if d.Severity != "info" {
			return "kontext ci"
		}
	}
	return "kontext ci --verbose"
}

// entryRef is the reference show passes on: an argument that names a
// file — it starts with ./ or ../, is absolute, or a file of that name
// exists in the directory kontext runs in — is resolved like git's paths
// (relative to that directory, as governing does); anything else is an
// id, ADR number or id prefix as typed.
func entryRef(g *factory, arg string) (string, error) {
	named := strings.HasPrefix(arg, "./") || strings.HasPrefix(arg, "../") || filepath.IsAbs(arg) || arg == "." || arg == ".."
	if !named {
		if fi, err := os.Stat(filepath.Join(g.dir, filepath.FromSlash(arg))); err == nil && !fi.IsDir() {
			named = true
		}
	}
	if !named {
		return arg, nil
	}
	rel, err := repoArgs(g, []string{arg})
	if err != nil {
		return "", err
	}
	return rel[0], nil
}
