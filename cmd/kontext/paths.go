package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/drafts"
	"github.com/kontext/kontext/engine/worktree"
)

// repoArgs resolves source path arguments the way git does: a relative
// path is relative to the directory kontext runs in (after -C, with its
// symlinks resolved as git's getcwd does), and the engine turns the
// absolute result into the repository-relative form, refusing paths
// outside the repository with invalid_input naming the root.
func repoArgs(g *factory, args []string) ([]string, error) {
	e, err := g.engine()
	if err != nil {
		return nil, err
	}
	base, err := filepath.Abs(g.dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	out := make([]string, 0, len(args))
	for _, a := range args {
		p := a
		if !filepath.IsAbs(p) && !strings.HasPrefix(p, "/") {
			p = filepath.Join(base, filepath.FromSlash(a))
			if strings.HasSuffix(a, "/") || strings.HasSuffix(a, string(os.PathSeparator)) {
				p += "/"
			}
		}
		rel, err := e.RepoPath(p)
		if err != nil {
			if p != a {
				return nil, apierr.Invalid("%s (given as %q, relative to %s)", apierr.As(err).Message, a, base)
			}
			return nil, err
		}
		out = append(out, rel)
	}
	return out, nil
}

func runPathsCmd(ctx context.Context, g *factory, args []string) int {
	stdout, stderr := g.io.Out, g.io.ErrOut
	if len(args) != 1 {
		return usageErr(g, stderr, "usage: kontext paths <entry> | kontext paths add|remove <entry> <glob>… | kontext paths suggest [<entry>…|--all] [--apply]")
	}
	e, err := read(ctx, g, (*engine.Engine).Get, &api.GetInput{ID: args[0]})
	if err != nil {
		return fail(g, stderr, err)
	}
	view := map[string]any{"id": e.ID, "file": e.File, "paths": e.Paths, "paths_source": e.PathsSource}
	return emit(g, stdout, view, func(w io.Writer) {
		fmt.Fprintf(w, "%s  %s\n", e.ID, e.File)
		if len(e.Paths) == 0 {
			fmt.Fprintf(w, "no paths: it governs nothing (kontext paths suggest %s)\n", e.ID)
			return
		}
		fmt.Fprintf(w, "paths (from %s):\n", sourceName(e.PathsSource))
		for _, p := range e.Paths {
			fmt.Fprintf(w, "  %s\n", p)
		}
	})
}

func sourceName(s string) string {
	switch s {
	case "overlay":
		return "the path overlay"
	case "both":
		return "the file and the path overlay"
	}
	return "the file"
}

// runPathsSet is kontext paths add|remove <entry> <glob>…: one
// drafts.set_paths write of the path overlay, staged.
func pathsSetCmd(verb string) func(g *factory, fs *pflag.FlagSet) runFunc {
	return func(g *factory, fs *pflag.FlagSet) runFunc {
		opID := fs.String("operation-id", "", "a stable id of this write (a retry with it replays the first result)")
		return func(ctx context.Context, pos []string) int {
			stdout, stderr := g.io.Out, g.io.ErrOut
			if len(pos) < 2 {
				return usageErr(g, stderr, "usage: kontext paths %s <entry> <glob>… (globs are repository-relative; quote them so the shell leaves them alone)", verb)
			}
			in := &api.SetPathsInput{EntryID: pos[0]}
			if verb == "add" {
				in.Add = pos[1:]
			} else {
				in.Remove = pos[1:]
			}
			// The request holds only what the user typed: the same
			// command derives the same id (a rerun resumes or replays).
			in.OperationID = *opID
			if in.OperationID == "" {
				in.OperationID = derivedOperationID("paths-"+verb, in)
			}
			res, err := call(g.writeCtx(ctx, ""), g, drafts.SetPaths, in)
			if err != nil {
				return fail(g, stderr, err)
			}
			r, err := setPathsResult(res)
			if err != nil {
				return fail(g, stderr, err)
			}
			return emit(g, stdout, res, func(w io.Writer) {
				printSetPaths(w, r)
				if r.Staged {
					fmt.Fprintln(w, "staged, not committed: review and commit as usual")
				}
			})
		}
	}
}

// setPathsResult reads a drafts.set_paths answer, which is a map when it
// is a replay.
func setPathsResult(res any) (*api.SetPathsResult, error) {
	if r, ok := res.(*api.SetPathsResult); ok {
		return r, nil
	}
	data, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var r api.SetPathsResult
	return &r, json.Unmarshal(data, &r)
}

func printSetPaths(w io.Writer, r *api.SetPathsResult) {
	switch {
	case r.Replayed:
		fmt.Fprintf(w, "already done (replayed): %s for %s\n", r.Path, r.Entry.ID)
	case r.Staged:
		fmt.Fprintf(w, "staged %s for %s\n", r.Path, r.Entry.ID)
	default:
		fmt.Fprintf(w, "nothing staged for %s\n", r.Entry.ID)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "  "+n)
	}
	if len(r.Entry.Paths) == 0 {
		fmt.Fprintf(w, "  %s has no paths now: it governs nothing\n", r.Entry.ID)
	} else {
		fmt.Fprintf(w, "  paths of %s (from %s): %s\n", r.Entry.ID, sourceName(r.Entry.PathsSource), strings.Join(r.Entry.Paths, " "))
	}
}

func runPathsSuggest(g *factory, fs *pflag.FlagSet) runFunc {
	all := fs.Bool("all", false, "every entry without paths")
	max := fs.Int("max", 3, "at most this many globs per entry")
	apply := fs.Bool("apply", false, "stage the suggestions at or above --min-confidence into the path overlay (as kontext paths add)")
	minConf := fs.Float64("min-confidence", 0.6, "with --apply: the lowest confidence (0-1) of a suggestion that is staged")
	opID := fs.String("operation-id", "", "with --apply: a stable id of this run; each entry's write gets it with the entry id appended")
	return func(ctx context.Context, ids []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		if !*apply && (fs.Changed("min-confidence") || fs.Changed("operation-id")) {
			return usageErr(g, stderr, "--min-confidence and --operation-id go with --apply; without it nothing is written")
		}
		if *minConf < 0 || *minConf > 1 {
			return usageErr(g, stderr, "--min-confidence is between 0 and 1, got %g", *minConf)
		}
		input := &api.SuggestPathsInput{MaxPerEntry: max}
		switch {
		case *all && len(ids) > 0:
			return usageErr(g, stderr, "pass entries or --all, not both")
		case *all:
			input.All = true
		case len(ids) == 0:
			return usageErr(g, stderr, "usage: kontext paths suggest [<entry>…|--all] [--apply [--min-confidence 0.6]]")
		default:
			input.IDs = ids
		}
		if g.prog != nil {
			g.prog.flow = "paths suggest"
		}
		g.prog.state("reading entries, mentions and co-changes")
		r, err := call(ctx, g, worktree.SuggestPaths, input)
		if err != nil {
			return fail(g, stderr, err)
		}
		if *apply {
			return applySuggestions(ctx, g, r, *minConf, *opID, stdout, stderr)
		}
		return emit(g, stdout, r, func(w io.Writer) {
			if len(r.Suggestions) == 0 {
				fmt.Fprintln(w, "every entry has paths: nothing to suggest")
				return
			}
			printSuggestions(w, r)
			fmt.Fprintln(w, "\nnothing was written; stage them with --apply [--min-confidence 0.6], or pick globs with kontext paths add <entry> <glob>…")
		})
	}
}

func printSuggestions(w io.Writer, r *api.SuggestPathsResult) {
	for _, s := range r.Suggestions {
		fmt.Fprintln(w, s.ID)
		if len(s.Globs) == 0 {
			fmt.Fprintln(w, "  no suggestion: its text names no path of the repository and its commits changed no other files")
		}
		for _, gl := range s.Globs {
			fmt.Fprintf(w, "  %.2f  %s\n", gl.Confidence, gl.Glob)
			for _, ev := range gl.Evidence {
				if ev.Type == "cochange" {
					fmt.Fprintf(w, "        changed with %s: %s\n", short(ev.Commit), strings.Join(ev.Files, ", "))
				} else {
					fmt.Fprintf(w, "        mentioned: %s (%s)\n", ev.Text, ev.Path)
				}
			}
		}
	}
}

// appliedSuggestions is the --json answer of paths suggest --apply.
type appliedSuggestions struct {
	MinConfidence float64               `json:"min_confidence"`
	Staged        []appliedSuggestion   `json:"staged"`
	Skipped       []skippedSuggestion   `json:"skipped"`
	Suggestions   []api.PathSuggestion  `json:"suggestions"`
	Results       []*api.SetPathsResult `json:"results"`
}

type appliedSuggestion struct {
	ID    string   `json:"id"`
	Globs []string `json:"globs"`
}

type skippedSuggestion struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// applySuggestions stages, per entry, the suggested globs at or above
// min through drafts.set_paths, and says exactly what it staged.
func applySuggestions(ctx context.Context, g *factory, r *api.SuggestPathsResult, min float64, opID string, stdout, stderr io.Writer) int {
	out := appliedSuggestions{MinConfidence: min, Staged: []appliedSuggestion{}, Skipped: []skippedSuggestion{},
		Suggestions: r.Suggestions, Results: []*api.SetPathsResult{}}
	if opID == "" {
		opID = newOperationID("paths-suggest")
	}
	for i, s := range r.Suggestions {
		g.prog.step(i+1, len(r.Suggestions), s.ID)
		var globs []string
		best := -1.0
		for _, gl := range s.Globs {
			if gl.Confidence >= min {
				globs = append(globs, gl.Glob)
			}
			best = math.Max(best, gl.Confidence)
		}
		if len(globs) == 0 {
			reason := "no suggestion (nothing in its text or history points to other paths)"
			if best >= 0 {
				reason = fmt.Sprintf("no suggestion at or above %.2f (the best is %.2f)", min, best)
			}
			out.Skipped = append(out.Skipped, skippedSuggestion{ID: s.ID, Reason: reason})
			continue
		}
		res, err := call(ctx, g, drafts.SetPaths, &api.SetPathsInput{OperationID: opID + ":" + s.ID, EntryID: s.ID, Add: globs})
		if err == nil {
			var sr *api.SetPathsResult
			if sr, err = setPathsResult(res); err == nil {
				out.Results = append(out.Results, sr)
				g.prog.fileDone(s.ID, sr.Path)
				if sr.Staged {
					out.Staged = append(out.Staged, appliedSuggestion{ID: s.ID, Globs: globs})
				} else {
					out.Skipped = append(out.Skipped, skippedSuggestion{ID: s.ID, Reason: "its overlay already holds " + strings.Join(globs, " ")})
				}
			}
		}
		if err != nil {
			if len(out.Staged) > 0 {
				w := newOut(stdout, g)
				for _, a := range out.Staged {
					fmt.Fprintf(w, "staged %s for %s\n", strings.Join(a.Globs, " "), a.ID)
				}
			}
			return fail(g, stderr, fmt.Errorf("staging the suggestions of %s: %w", s.ID, err))
		}
	}
	return emit(g, stdout, out, func(w io.Writer) {
		if len(r.Suggestions) == 0 {
			fmt.Fprintln(w, "every entry has paths: nothing to suggest, nothing staged")
			return
		}
		for _, res := range out.Results {
			printSetPaths(w, res)
		}
		for _, s := range out.Skipped {
			fmt.Fprintf(w, "not staged for %s: %s\n", s.ID, s.Reason)
		}
		if len(out.Staged) == 0 {
			fmt.Fprintln(w, "nothing staged")
			return
		}
		path := out.Results[0].Path
		fmt.Fprintf(w, "staged in %s, not committed: review (git diff --cached %s) and commit as usual\n", path, path)
	})
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
