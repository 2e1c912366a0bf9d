package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/kontext/kontext/internal/bundle"
	"github.com/kontext/kontext/internal/outfile"
)

// runBundleCmd writes a knowledge bundle (kontext.bundle/v1) for the
// review console or the edge worker: to a file by the rules of package
// outfile (atomically; a device or FIFO directly) or, with -o -, to
// stdout. By default it is a bundle to publish: committed,
// team-visible knowledge at HEAD; --worktree adds uncommitted files.
func runBundleCmd(g *factory, fs *pflag.FlagSet) runFunc {
	base := fs.String("base", "", "base revision (default: merge base with origin/HEAD, origin/main, the upstream…)")
	head := fs.String("head", "", "head revision (default: HEAD; committed knowledge only)")
	worktree := fs.Bool("worktree", false, "include uncommitted knowledge files (HEAD plus the working tree) for a local review")
	out := fs.StringP("output", "o", "", "output `file` (- = stdout)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		if len(args) > 0 {
			return usageErr(g, stderr, "kontext bundle takes no arguments (got %q); usage: kontext bundle [--base R] [--head R | --worktree] -o file.json", args[0])
		}
		if *out == "" {
			return usageErr(g, stderr, "kontext bundle needs -o file.json (or -o - for stdout)")
		}
		g.prog.state("building the bundle")
		b, err := bundle.Build(ctx, bundle.Options{Dir: g.dir, Base: *base, Head: *head, Worktree: *worktree, Progress: g.prog.engineProgress()})
		if err != nil {
			return fail(g, stderr, err)
		}
		if outfile.IsStdout(*out) {
			data, err := bundle.Marshal(b)
			if err != nil {
				return fail(g, stderr, err)
			}
			o := newOut(stdout, g)
			if g.jq != "" { // --jq filters the bundle itself
				if err := runJQ(o, g.jq, data); err != nil && o.err == nil {
					return fail(g, stderr, err)
				}
				return o.finish(stderr, exitOK, 0)
			}
			o.Write(data)
			g.prog.fileDone(*out, "")
			return o.finish(stderr, exitOK, bytes.Count(data, []byte("\n")))
		}
		n, err := bundle.WriteFile(*out, b)
		if err != nil {
			return fail(g, stderr, err)
		}
		g.prog.fileDone(*out, *out)
		sum := bundleSummary{Path: *out, Bytes: n, Files: len(b.Files), ChangedPaths: len(b.ChangedPaths), Entries: len(b.History), Drifted: len(b.Drift)}
		if g.json {
			return emit(g, stdout, sum, nil)
		}
		line := fmt.Sprintf("wrote %s (%d bytes): %d files, %d changed paths, %d entries, %d drifted",
			sum.Path, sum.Bytes, sum.Files, sum.ChangedPaths, sum.Entries, sum.Drifted)
		if !g.prog.carry(line) { // under --progress jsonl stderr holds JSON lines only
			fmt.Fprintln(stderr, line)
			bundleWarnings(stderr, b.Warnings)
		}
		return exitOK
	}
}

// bundleSummary is kontext bundle --json with -o file: what was written.
type bundleSummary struct {
	Path         string `json:"path"`
	Bytes        int    `json:"bytes"`
	Files        int    `json:"files"`
	ChangedPaths int    `json:"changed_paths"`
	Entries      int    `json:"entries"`
	Drifted      int    `json:"drifted"`
}

// bundleWarnings prints a bundle's warnings (what its readers will answer
// differently or without) on stderr, one "warning:" line each.
func bundleWarnings(stderr io.Writer, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintln(stderr, "warning: "+w)
	}
}
