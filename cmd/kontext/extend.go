package main

import (
	"context"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/drafts"
)

// runExtendCmd is `kontext extend <id> "<text>" [--dry-run]`: drafts.extend
// (the text appended verbatim under ## Added <today>), then drafts.stage
// {amends} with exactly the body it returned — the documented extend →
// amend workflow. --dry-run prints the extended body and stages nothing.
func runExtendCmd(g *factory, fs *pflag.FlagSet) runFunc {
	dry := fs.Bool("dry-run", false, "print the extended body; stage nothing")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		pos := args
		if len(pos) != 2 || strings.TrimSpace(pos[1]) == "" {
			return usageErr(g, stderr, "usage: kontext extend <id> \"<text>\" [--dry-run]")
		}
		// Derived from what the user typed, not from the amend request
		// built below: that holds today's date (## Added <date>) and the
		// entry's revision, which change between runs (at midnight, when
		// the amend lands); a rerun must find this write's receipt.
		opID := derivedOperationID("extend", map[string]string{"entry": pos[0], "text": pos[1]})
		if !*dry {
			done, pending, err := priorWrite(ctx, g, opID)
			if err != nil {
				return fail(g, stderr, err)
			} else if done != nil {
				return emitStaged(g, stdout, done)
			}
			stored := &api.StageInput{}
			if ok, err := storedRequest(g, opID, stored); err != nil {
				return fail(g, stderr, err)
			} else if ok && pending {
				res, err := call(g.writeCtx(ctx, ""), g, drafts.Stage, stored)
				if err != nil {
					return fail(g, stderr, err)
				}
				return emitStaged(g, stdout, res)
			}
		}
		en, err := read(ctx, g, (*engine.Engine).Get, &api.GetInput{ID: pos[0]})
		if err != nil {
			return fail(g, stderr, err)
		}
		ext, err := call(ctx, g, drafts.Extend, &api.ExtendInput{EntryID: en.ID, EntryRevision: en.Revision, Text: pos[1]})
		if err != nil {
			return fail(g, stderr, err)
		}
		if *dry {
			return emit(g, stdout, ext, func(w io.Writer) { fmt.Fprintln(w, ext.Entry.Body) })
		}
		amends := ext.Amends
		res, err := call(g.writeCtx(ctx, ""), g, drafts.Stage, &api.StageInput{OperationID: opID, Amends: &amends,
			Entry: &api.StageEntry{Body: ext.Entry.Body}})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emitStaged(g, stdout, res)
	}
}
