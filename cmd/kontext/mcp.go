package main

import (
	"context"
	"fmt"

	"github.com/kontext/kontext/internal/mcpserver"
)

// runMCPCmd is `kontext mcp`: an MCP server over stdio (newline-delimited
// JSON-RPC on stdin/stdout) until the client closes stdin. Nothing but
// protocol messages is written to stdout.
func runMCPCmd(ctx context.Context, g *factory, args []string) int {
	stdout, stderr, stdin := g.io.Out, g.io.ErrOut, g.io.In
	if len(args) != 0 {
		fmt.Fprintf(stderr, "kontext: mcp takes no arguments (got %q)\n", args)
		return exitUsage
	}
	if err := mcpserver.Serve(ctx, g.dir, stdin, stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "kontext: mcp: %v\n", err)
		return exitFailed
	}
	return exitOK
}
