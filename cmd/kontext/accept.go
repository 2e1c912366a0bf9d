package main

import (
	"context"
	"fmt"
	"io"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/drafts"
)

// runAcceptCmd is `kontext accept <id>`: a proposed decision becomes
// accepted (drafts.set_status), staged.
func runAcceptCmd(ctx context.Context, g *factory, args []string) int {
	return setStatusCmd(ctx, g, "accept", "accepted", args)
}

// runRejectCmd is `kontext reject <id>`: a proposed decision becomes
// rejected (drafts.set_status), staged.
func runRejectCmd(ctx context.Context, g *factory, args []string) int {
	return setStatusCmd(ctx, g, "reject", "rejected", args)
}

// setStatusCmd reads the decision's current revision, then sets its
// status; the file keeps every other byte.
func setStatusCmd(ctx context.Context, g *factory, name, status string, args []string) int {
	stdout, stderr := g.io.Out, g.io.ErrOut
	pos := args
	if len(pos) != 1 {
		return usageErr(g, stderr, "usage: kontext %s <id> (a proposed decision: id, id prefix, ADR number or path)", name)
	}
	// Derived from what the user typed, not from the revision read below
	// (it changes when the status lands): a rerun finds this receipt.
	opID := derivedOperationID(name, map[string]string{"entry": pos[0]})
	done, pending, err := priorWrite(ctx, g, opID)
	if err != nil {
		return failCLI(g, stderr, err)
	}
	var res any = done
	if done == nil {
		in := &api.SetStatusInput{}
		if ok, err := storedRequest(g, opID, in); err != nil {
			return failCLI(g, stderr, err)
		} else if !ok || !pending {
			en, err := read(ctx, g, (*engine.Engine).Get, &api.GetInput{ID: pos[0]})
			if err != nil {
				return failCLI(g, stderr, err)
			}
			in = &api.SetStatusInput{OperationID: opID, EntryID: en.ID, EntryRevision: en.Revision, Status: status}
		}
		if res, err = call(g.writeCtx(ctx, ""), g, drafts.SetStatus, in); err != nil {
			return failCLI(g, stderr, err)
		}
	}
	return emit(g, stdout, res, func(w io.Writer) {
		if r, ok := res.(*api.StageResult); ok {
			fmt.Fprintf(w, "%s %s (%s)\n", status, r.Entry.ID, r.Path)
		} else if path, id, ok := replayed(res); ok {
			fmt.Fprintf(w, "%s %s (%s) — this command ran before: its result again, nothing written twice\n", status, id, path)
		}
		fmt.Fprintln(w, "staged, not committed: review and commit as usual")
	})
}
