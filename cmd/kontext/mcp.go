package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/kontext/kontext/internal/httpserver"
	"github.com/kontext/kontext/internal/mcpserver"
)

// drainTime is how long a stopped HTTP server waits for the requests in
// flight before it cuts them off.
const drainTime = 30 * time.Second

// runMCPCmd is `kontext mcp`: an MCP server over stdio (newline-delimited
// JSON-RPC on stdin/stdout) until the client closes stdin, nothing but
// protocol messages on stdout; with --http ADDR the same tools over MCP
// Streamable HTTP at ADDR/mcp until interrupted.
func runMCPCmd(g *factory, fs *pflag.FlagSet) runFunc {
	addr := fs.String("http", "", "serve MCP Streamable HTTP at `host:port`/mcp instead of stdio (loopback; another address needs a token)")
	tokenEnv := fs.String("token-env", "KONTEXT_MCP_TOKEN", "the environment `variable` holding the bearer token --http requires (never the token itself)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr, stdin := g.io.Out, g.io.ErrOut, g.io.In
		if len(args) != 0 {
			return usageErr(g, stderr, "kontext mcp takes no arguments (got %q)", args[0])
		}
		if *addr == "" {
			if fs.Changed("token-env") {
				return usageErr(g, stderr, "--token-env is for --http: the stdio server has no token")
			}
			if err := mcpserver.Serve(ctx, g.dir, stdin, stdout); err != nil && ctx.Err() == nil {
				fmt.Fprintf(stderr, "kontext: mcp: %v\n", err)
				return exitFailed
			}
			return exitOK
		}
		return serveMCPHTTP(ctx, g, *addr, *tokenEnv)
	}
}

// serveMCPHTTP is `kontext mcp --http ADDR`.
func serveMCPHTTP(ctx context.Context, g *factory, addr, tokenEnv string) int {
	stdout, stderr := g.io.Out, g.io.ErrOut
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErr(g, stderr, "--http %q is not host:port (e.g. 127.0.0.1:8765; port 0 picks a free one)", addr)
	}
	if tokenEnv == "" {
		return usageErr(g, stderr, "--token-env needs the name of an environment variable")
	}
	token := os.Getenv(tokenEnv)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "kontext: listening on %s: %v\n", addr, err)
		return exitFailed
	}
	defer ln.Close()
	// The URL names the host as given (Go reports 0.0.0.0 as [::]) and
	// the port listened on (port 0 picks one).
	bound := ln.Addr().String()
	if _, port, err := net.SplitHostPort(bound); err == nil && host != "" {
		bound = net.JoinHostPort(host, port)
	}
	url := "http://" + bound + mcpserver.Path
	loopback := mcpserver.IsLoopback(ln)
	if !loopback {
		if token == "" {
			return usageErr(g, stderr, "--http %s is reachable from other machines: put a bearer token in $%s (or name another variable with --token-env) and send it as Authorization: Bearer <token>", addr, tokenEnv)
		}
		fmt.Fprintf(stderr, "kontext: warning: MCP on %s is reachable from other machines; every request needs the token in $%s, and the connection is plain HTTP (put TLS in front of it)\n", url, tokenEnv)
	}
	h := mcpserver.NewHTTPHandler(g.dir, mcpserver.HTTPOptions{Loopback: loopback, Token: token})
	if code := emit(g, stdout, map[string]string{"url": url}, func(w io.Writer) {
		fmt.Fprintf(w, "kontext mcp: %s  (Ctrl-C stops)\n", url)
	}); code != exitOK {
		return code
	}
	if err := httpserver.Run(ctx, ln, h, drainTime); err != nil {
		fmt.Fprintf(stderr, "kontext: serving %s: %v\n", url, err)
		return exitFailed
	}
	return exitOK
}
