package main

import (
	"context"
	"github.com/spf13/pflag"
	"io"
	"strings"

	"github.com/kontext/kontext/engine/api"
)

// exitOverBudget: the brief exceeds its budget with nothing left to drop.
const exitOverBudget = 10

// runBriefCmd is `kontext brief [<path>…] [--diff <base>] [--budget-lines N]
// [--architecture] [--json]`: the context.brief operation; exit 10 when
// the brief is over budget with nothing left to drop (a CLI rule).
func runBriefCmd(g *factory, fs *pflag.FlagSet) runFunc {
	diff := fs.String("diff", "", "brief the files changed since this revision (its merge base with HEAD) plus uncommitted ones")
	budget := fs.Int("budget-lines", 0, "at most this many lines; lower-authority content is dropped first (default: [brief] budget_lines of the config, 300)")
	arch := fs.Bool("architecture", false, "include the ARCHITECTURE section")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		paths := args
		var err error
		budgetSet := fs.Changed("budget-lines")
		if budgetSet && *budget < 1 {
			return usageErr(g, stderr, "--budget-lines must be at least 1")
		}
		if *diff != "" && len(paths) > 0 {
			return usageErr(g, stderr, "pass paths or --diff <base>, not both")
		}
		if strings.HasPrefix(*diff, "-") {
			return usageErr(g, stderr, "--diff %q starts with '-'; pass a git revision such as origin/main", *diff)
		}
		if len(paths) > 0 {
			if paths, err = repoArgs(g, paths); err != nil {
				return fail(g, stderr, err)
			}
		}

		e, err := g.engine()
		if err != nil {
			return fail(g, stderr, err)
		}
		in := &api.BriefInput{Paths: paths, Diff: *diff, Architecture: *arch}
		if budgetSet {
			in.BudgetLines = budget
		}
		g.prog.state("assembling the brief")
		b, err := e.Brief(ctx, in)
		if err != nil {
			return fail(g, stderr, err)
		}
		code := emit(g, stdout, b, func(w io.Writer) {
			for _, s := range b.Sections { // the text is the sections' texts in order
				io.WriteString(w, s.Text)
			}
		})
		if code == exitOK && !g.json && g.jq == "" && emptyBrief(b) {
			// An empty brief says why: entries without paths in its
			// REPOSITORY note, knowledge not set up yet here.
			printAdoptionHintOf(ctx, g, stderr)
		}
		if code == exitOK && b.OverBudget {
			return exitOverBudget
		}
		return code
	}
}

// emptyBrief: no entry governs the brief's paths (no entry section, and
// nothing excluded).
func emptyBrief(b *api.Brief) bool {
	for _, s := range b.Sections {
		switch s.ID {
		case "repository", "review_due", "premises_changed", "excluded", "budget":
		default:
			return false // an entry section
		}
	}
	return len(b.Excluded) == 0
}
