package main

import (
	"context"
	"fmt"
	"github.com/spf13/pflag"
	"io"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/drafts"
)

// runConfirmCmd is `kontext confirm <id>… [--because …] [--kind read|agent]
// [--migrate-legacy]`: a person at a terminal confirms that entries still
// hold (ledger kind read unless told).
func runConfirmCmd(g *factory, fs *pflag.FlagSet) runFunc {
	because := fs.String("because", "", "why the entries still hold (one line, kept in the ledger)")
	kind := fs.String("kind", "read", "read (a person looked) or agent")
	migrate := fs.Bool("migrate-legacy", false, "write bulk ledger lines for entries whose only verification is a checked date")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		ids := args
		input := &api.ConfirmInput{Because: *because}
		switch {
		case *migrate && len(ids) > 0:
			return usageErr(g, stderr, "pass ids or --migrate-legacy, not both")
		case *migrate:
			input.MigrateLegacy = true
		case len(ids) == 0:
			return usageErr(g, stderr, "usage: kontext confirm <id>… [--because \"…\"]")
		case len(ids) == 1:
			input.ID, input.Kind = ids[0], *kind
		default:
			input.IDs, input.Kind = ids, *kind
		}
		res, err := call(ctx, g, drafts.Confirm, input)
		if err != nil {
			return fail(g, stderr, err)
		}
		code := emit(g, stdout, res, func(w io.Writer) {
			switch r := res.(type) {
			case *api.Confirmation:
				fmt.Fprintf(w, "confirmed %s at %s (staged %s and %s)\n", r.ID, r.Checked, r.Path, r.Ledger.Path)
			case *api.ConfirmManyResult:
				for _, c := range r.Confirmed {
					fmt.Fprintf(w, "confirmed %s at %s (%s)\n", c.ID, c.Checked, c.Ledger.Kind)
				}
				for _, f := range r.Failed {
					fmt.Fprintf(w, "not confirmed %s: %s (%s)\n", f.ID, f.Message, f.Code)
				}
			case *api.MigrateResult:
				fmt.Fprintf(w, "wrote %d bulk ledger lines from legacy checked dates\n", len(r.Migrated))
				for _, s := range r.Skipped {
					fmt.Fprintf(w, "skipped %s: %s\n", s.ID, s.Reason)
				}
			}
			fmt.Fprintln(w, "staged, not committed: review and commit as usual")
		})
		if many, ok := res.(*api.ConfirmManyResult); ok && code == exitOK && len(many.Failed) > 0 {
			return exitFailed
		}
		return code
	}
}
