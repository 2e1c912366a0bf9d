package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
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
	if s, err := g.status(ctx); err == nil && s.Hint != nil {
		printAdoptionHint(w, s)
		return
	}
	count := map[string]int{}
	history := false
	for offset := 0; ; {
		l, err := read(ctx, g, (*engine.Engine).List, &api.ListInput{ActiveOnly: true, Limit: intp(500), Offset: offset, History: &history})
		if err != nil {
			return
		}
		for _, e := range l.Entries {
			if len(e.Paths) == 0 {
				count[e.Kind]++
			}
		}
		if l.NextOffset == nil {
			break
		}
		offset = *l.NextOffset
	}
	if len(count) == 0 {
		return
	}
	kinds := make([]string, 0, len(count))
	n := 0
	for k := range count {
		kinds = append(kinds, k)
		n += count[k]
	}
	sort.Slice(kinds, func(i, j int) bool {
		return count[kinds[i]] > count[kinds[j]] || count[kinds[i]] == count[kinds[j]] && kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", count[k], kindNoun(k, count[k]))
	}
	fmt.Fprintf(w, "%s %s no paths, so %s no path yet; suggest paths from their history: kontext paths suggest --all (--apply stages them)\n",
		joinAnd(parts), plural(n, "has", "have"), plural(n, "it governs", "they govern"))
}

// kindNoun is a kind as a noun: "decision", "decisions".
func kindNoun(kind string, n int) string {
	if kind == "architecture" {
		return plural(n, "architecture note", "architecture notes")
	}
	return plural(n, kind, kind+"s")
}

func joinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
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
