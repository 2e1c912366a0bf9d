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
	"github.com/kontext/kontext/engine/apierr"
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
	if len(args) > 0 && args[0] == "suggest" {
		return runPathsSuggest(ctx, g, args[1:], stdout, stderr)
	}
	if len(args) > 0 && (args[0] == "add" || args[0] == "remove") {
		return fail(g, stderr, apierr.New(apierr.UnsupportedOperation,
			"kontext paths %s is not available in this version; add the globs to <storage>/paths.toml by hand (README: \"Paths for records kontext must not edit\") and commit it", args[0]))
	}
	if len(args) != 1 {
		return usageErr(g, stderr, "usage: kontext paths <entry> | kontext paths suggest [<entry>…|--all]")
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

func runPathsSuggest(ctx context.Context, g *factory, args []string, stdout, stderr io.Writer) int {
	fs := flags("paths suggest", stderr)
	all := fs.Bool("all", false, "every entry without paths")
	max := fs.Int("max", 3, "at most this many globs per entry")
	ids, err := parseInterleaved(fs, args)
	if err != nil {
		return exitUsage
	}
	input := &api.SuggestPathsInput{MaxPerEntry: max}
	switch {
	case *all && len(ids) > 0:
		return usageErr(g, stderr, "pass entries or --all, not both")
	case *all:
		input.All = true
	case len(ids) == 0:
		return usageErr(g, stderr, "usage: kontext paths suggest [<entry>…|--all]")
	default:
		input.IDs = ids
	}
	r, err := call(ctx, g, worktree.SuggestPaths, input)
	if err != nil {
		return fail(g, stderr, err)
	}
	return emit(g, stdout, r, func(w io.Writer) {
		if len(r.Suggestions) == 0 {
			fmt.Fprintln(w, "every entry has paths: nothing to suggest")
			return
		}
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
		fmt.Fprintln(w, "\nnothing was written; add the globs you want to <storage>/paths.toml and commit it")
	})
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
