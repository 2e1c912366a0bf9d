package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"os"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/models"
)

// llmFlag is the llm input of a --llm [adapter] flag: "" absent, "true"
// for the selected adapter, else an adapter name.
func llmInput(use bool, adapter string) json.RawMessage {
	switch {
	case adapter != "":
		b, _ := json.Marshal(adapter)
		return b
	case use:
		return json.RawMessage("true")
	}
	return nil
}

// runExtractCmd is `kontext extract [<file>|-] [--max N] [--source S]
// [--llm-adapter A]`: candidate entries a model finds in a text (a file, or
// stdin); nothing is written.
func runExtractCmd(g *factory, fs *pflag.FlagSet) runFunc {
	max := fs.Int("max", 0, "at most this many candidates (default 5, at most 20)")
	source := fs.String("source", "", "where the text comes from, e.g. external:pr/42")
	adapter := fs.String("llm-adapter", "", "use this adapter (command or openai) instead of the selected one")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		pos := args
		var err error
		if len(pos) > 1 {
			return usageErr(g, stderr, "usage: kontext extract [<file> | -] [--max N] [--source S]")
		}
		var data []byte
		if len(pos) == 0 || pos[0] == "-" {
			data, err = io.ReadAll(io.LimitReader(g.io.In, 1<<20))
		} else {
			data, err = os.ReadFile(pos[0])
		}
		if err != nil {
			return usageErr(g, stderr, "kontext extract: %v", err)
		}
		res, err := call(ctx, g, models.Extract, &api.ExtractInput{Text: string(data), Source: *source, Max: *max, LLM: llmInput(true, *adapter)})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, res, func(w io.Writer) {
			if len(res.Candidates) == 0 {
				fmt.Fprintln(w, "no new insights found")
			}
			for _, c := range res.Candidates {
				fmt.Fprintf(w, "%s  %s\n", c.Entry.Kind, c.Entry.Title)
				if c.Entry.Summary != "" {
					fmt.Fprintf(w, "  %s\n", c.Entry.Summary)
				}
				if len(c.Entry.Paths) > 0 {
					fmt.Fprintf(w, "  paths: %s\n", strings.Join(c.Entry.Paths, ", "))
				}
			}
			for _, d := range res.Duplicates {
				fmt.Fprintf(w, "already kept: %s (%s)\n", d.Title, d.ID)
			}
			fmt.Fprintln(w, "nothing written: keep one with kontext capture or kontext new (--json gives the drafts)")
		})
	}
}

// runReviseCmd is `kontext revise <id> --objection "…"…`: a replacement
// draft from a model that answers the objections; nothing is written.
func runReviseCmd(g *factory, fs *pflag.FlagSet) runFunc {
	var objections multi
	fs.Var(&objections, "objection", "what is wrong with the entry (repeatable, 1 to 20)")
	adapter := fs.String("llm-adapter", "", "use this adapter (command or openai) instead of the selected one")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		pos := args
		if len(pos) != 1 || len(objections) == 0 {
			return usageErr(g, stderr, "usage: kontext revise <id> --objection \"…\" [--objection \"…\"]…")
		}
		en, err := read(ctx, g, (*engine.Engine).Get, &api.GetInput{ID: pos[0]})
		if err != nil {
			return fail(g, stderr, err)
		}
		res, err := call(ctx, g, models.Revise, &api.ReviseInput{EntryID: en.ID, EntryRevision: en.Revision, Objections: objections, LLM: llmInput(true, *adapter)})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, res, func(w io.Writer) {
			fmt.Fprintf(w, "# %s\n\n%s\n\n", res.Entry.Title, res.Entry.Body)
			fmt.Fprintf(w, "draft replacement of %s (supersedes it); nothing written: stage it with kontext supersede %s \"%s\"\n", en.ID, en.ID, res.Entry.Title)
		})
	}
}

// runRelatedCmd is `kontext related "<text>" [--path P]… [--llm]`.
func runRelatedCmd(g *factory, fs *pflag.FlagSet) runFunc {
	var paths multi
	fs.Var(&paths, "path", "a path the text is about (repeatable)")
	useLLM := fs.Bool("llm", false, "ask the locally selected model how the text relates to each candidate")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		pos := args
		if len(pos) == 0 && len(paths) == 0 {
			return usageErr(g, stderr, "usage: kontext related \"<text>\" [--path P]… [--llm]")
		}
		res, err := read(ctx, g, (*engine.Engine).Related, &api.RelatedInput{Text: strings.Join(pos, " "), Paths: paths, LLM: llmInput(*useLLM, "")})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, res, func(w io.Writer) {
			if len(res.Candidates) == 0 {
				fmt.Fprintln(w, "no related entries")
			}
			for _, c := range res.Candidates {
				fmt.Fprintf(w, "%s  %s (%s): %s\n", c.ID, c.Title, c.Kind, c.Reason)
			}
			for _, r := range res.Relations {
				if r.ID != "" {
					fmt.Fprintf(w, "model: %s %s — %s\n", r.Relation, r.ID, r.Label)
				} else {
					fmt.Fprintf(w, "model: %s — %s\n", r.Relation, r.Label)
				}
			}
		})
	}
}
