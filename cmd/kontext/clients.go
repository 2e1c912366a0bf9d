package main

import (
	"fmt"
	"strings"

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

// clientCwd is the start directory of a client, repository-relative:
// --cwd when given (relative to the current directory, as paths are),
// else the current directory.
func clientCwd(g *factory, flag string) (string, error) {
	dir := flag
	if dir == "" {
		dir = "."
	}
	ps, err := repoArgs(g, []string{dir + "/"})
	if err != nil {
		return "", err
	}
	return strings.Trim(ps[0], "/"), nil
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
