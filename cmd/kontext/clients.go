package main

import (
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

// clientNames are the values of --client, from the engine's table of the
// clients' loading rules.
func clientNames() []string {
	var out []string
	for _, c := range engine.ClientRules() {
		out = append(out, c.Name)
	}
	return out
}

// badClient is the usage error of an unknown --client ("" when it is
// one of the clients, or not given).
func badClient(client string) string {
	if client == "" {
		return ""
	}
	for _, n := range clientNames() {
		if n == client {
			return ""
		}
	}
	return fmt.Sprintf("--client must be one of %s, got %q", strings.Join(clientNames(), ", "), client)
}

// clientCwd is the start directory of a client, repository-relative:
// --cwd when given (relative to the current directory, as paths are),
// else the current directory.
func clientCwd(g *factory, flag string) (string, error) {
	dir := flag
	if dir == "" {
		dir = "."
	}
	// The path rule refuses the root itself as a path: ask for a name in
	// the directory and keep its directory.
	ps, err := repoArgs(g, []string{filepath.Join(dir, "_")})
	if err != nil {
		return "", err
	}
	if d := path.Dir(ps[0]); d != "." {
		return d, nil
	}
	return "", nil
}

// clientTable prints what a client loads: one row per entry in load
// order, then what the answer assumes.
func clientTable(o *out, r *api.GoverningResult) {
	c := r.Client
	start := c.Cwd
	if start == "" {
		start = "the repository root"
	}
	fmt.Fprintf(o, "%s started in %s loads, in this order:\n", c.Client, start)
	t := newTable(o, "LOAD", "FILE", "BYTES", "REASON")
	t.FlexCol = 3
	for _, e := range r.Entries {
		size := fmt.Sprint(len(e.Markdown))
		if e.BytesLoaded != nil {
			size = fmt.Sprintf("%d/%d", *e.BytesLoaded, len(e.Markdown))
		}
		t.Row(e.Load, e.File, size, e.Reason)
	}
	t.Render()
	if len(r.Entries) == 0 {
		fmt.Fprintln(o, "  nothing")
	}
	for _, n := range c.Notes {
		fmt.Fprintln(o, "note: "+n)
	}
	fmt.Fprintf(o, "loading rules: %s (read %s)\n", c.Doc, c.DocRead)
}

// runCostCmd is `kontext cost [<path>…|--diff <base>] [--client C] [--cwd
// DIR]`: the context.cost operation.
func runCostCmd(g *factory, fs *pflag.FlagSet) runFunc {
	diff := fs.String("diff", "", "the files changed since this revision (its merge base with HEAD) plus uncommitted ones")
	client := fs.String("client", "", "only this coding agent: "+strings.Join(clientNames(), ", "))
	cwdFlag := fs.String("cwd", "", "the directory the agent starts in (default: the current directory)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		paths := args
		var err error
		if *diff != "" && len(paths) > 0 {
			return usageErr(g, stderr, "pass paths or --diff <base>, not both")
		}
		if strings.HasPrefix(*diff, "-") {
			return usageErr(g, stderr, "--diff %q starts with '-'; pass a git revision such as origin/main", *diff)
		}
		if msg := badClient(*client); msg != "" {
			return usageErr(g, stderr, "%s", msg)
		}
		if len(paths) > 0 {
			if paths, err = repoArgs(g, paths); err != nil {
				return fail(g, stderr, err)
			}
		}
		cwd, err := clientCwd(g, *cwdFlag)
		if err != nil {
			return fail(g, stderr, err)
		}
		r, err := read(ctx, g, (*engine.Engine).Cost, &api.CostInput{Paths: paths, Diff: *diff, Client: *client, Cwd: cwd})
		if err != nil {
			return fail(g, stderr, err)
		}
		return emit(g, stdout, r, func(w io.Writer) { costTable(w.(*out), r) })
	}
}

// costTable prints one row per client, then each client's largest files
// and what was cut.
func costTable(o *out, r *api.CostResult) {
	start := r.Cwd
	if start == "" {
		start = "the repository root"
	}
	fmt.Fprintf(o, "context cost of %d path(s), started in %s (tokens: %s)\n", r.PathCount, start, r.Estimator)
	t := newTable(o, "CLIENT", "BYTES", "TOKENS", "LOADED", "NOT LOADED", "CUT", "LARGEST")
	t.FlexCol = 6
	for _, c := range r.Clients {
		largest := "-"
		if len(c.Top) > 0 {
			largest = fmt.Sprintf("%s (%d)", c.Top[0].File, c.Top[0].BytesLoaded)
		}
		t.Row(c.Client, fmt.Sprint(c.Bytes), fmt.Sprint(c.Tokens), fmt.Sprint(c.Loaded), fmt.Sprint(c.NotLoaded), fmt.Sprint(len(c.Cut)), largest)
	}
	t.Render()
	for _, c := range r.Clients {
		for _, f := range c.Cut {
			fmt.Fprintf(o, "%s cut %s: %d of %d bytes load\n", c.Client, f.File, f.BytesLoaded, f.Bytes)
		}
	}
}
