package main

import (
	"context"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/drafts"
)

// runPromoteCmd is `kontext promote <candidate> [--path P]`: stage a
// captured inbox candidate as a new entry (drafts.stage {candidate_id});
// --path is the requested path (a kind directory or a file inside one).
func runPromoteCmd(g *factory, fs *pflag.FlagSet) runFunc {
	reqPath := fs.String("path", "", "where to write it: a kind directory or a file inside one")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		ids := args
		if len(ids) != 1 {
			return usageErr(g, stderr, "usage: kontext promote <candidate> [--path P]")
		}
		in := &api.StageInput{CandidateID: ids[0], RequestedPath: *reqPath}
		in.OperationID = derivedOperationID("promote", in) // the user's input only
		res, err := call(g.writeCtx(ctx, ""), g, drafts.Stage, in)
		if err != nil {
			return fail(g, stderr, err)
		}
		return emitStaged(g, stdout, res)
	}
}

// runRepairCmd is `kontext repair`: drafts.confirm {repair: true} rewrites
// lagging checked lines from the ledger and restores missing reciprocal
// supersede metadata; the changed files are staged.
func runRepairCmd(g *factory, fs *pflag.FlagSet) runFunc {
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		rest := args
		if len(rest) > 0 {
			return usageErr(g, stderr, "usage: kontext repair")
		}
		res, err := call(ctx, g, drafts.Confirm, &api.ConfirmInput{Repair: true})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, res, func(w io.Writer) {
			r, ok := res.(*api.RepairResult)
			if !ok {
				return
			}
			for _, x := range r.Repaired {
				from := "none"
				if x.From != nil {
					from = *x.From
				}
				fmt.Fprintf(w, "checked %s: %s -> %s (%s)\n", x.ID, from, x.To, x.Path)
			}
			for _, x := range r.SupersedesRepaired {
				fmt.Fprintf(w, "superseded %s: superseded_by %s (%s)\n", x.ID, strings.Join(x.SupersededBy, ", "), x.Path)
			}
			for _, s := range r.Skipped {
				fmt.Fprintf(w, "skipped %s: %s\n", s.ID, s.Reason)
			}
			if len(r.Repaired)+len(r.SupersedesRepaired) == 0 {
				fmt.Fprintln(w, "nothing to repair")
				return
			}
			fmt.Fprintln(w, "staged, not committed: review and commit as usual")
		})
	}
}
