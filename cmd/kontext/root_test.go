package main

import (
	"context"
	"strings"

	"github.com/spf13/pflag"
)

// runCommand runs the command path (e.g. "bundle", "paths suggest") of the
// table on g the way its cobra command does, with g's global settings as
// they are: tests that build the factory themselves.
func runCommand(ctx context.Context, g *factory, path string, args []string) int {
	cmds := commandTable()
	var c *command
	for _, name := range strings.Fields(path) {
		c = nil
		for i := range cmds {
			if strings.Fields(cmds[i].use)[0] == name {
				c = &cmds[i]
				break
			}
		}
		if c == nil {
			panic("no command " + path)
		}
		cmds = c.subs
	}
	fs := pflag.NewFlagSet(path, pflag.ContinueOnError)
	run := func(ctx context.Context, args []string) int { return c.run(ctx, g, args) }
	if c.flags != nil {
		run = c.flags(g, fs)
	}
	if fs.Lookup("json") == nil {
		fs.BoolVar(&g.json, "json", g.json, "the global --json")
	}
	if err := fs.Parse(args); err != nil {
		g.io.ErrOut.Write([]byte(err.Error() + "\n"))
		return exitUsage
	}
	return run(ctx, fs.Args())
}
