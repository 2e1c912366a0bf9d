package main

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext/kontext/internal/mcpserver"
)

// TestHelpNamesEveryMCPTool: `kontext --help` and `kontext help mcp` name
// every tool the MCP server lists (they named 4 of 6).
func TestHelpNamesEveryMCPTool(t *testing.T) {
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := mcpserver.New(t.TempDir()).Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "help", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) == 0 {
		t.Fatalf("tools/list: %v", err)
	}
	_, usage, _ := runCLI(t, "--help")
	_, mcpHelp, _ := runCLI(t, "help", "mcp")
	for _, tool := range list.Tools {
		if !strings.Contains(usage, tool.Name) || !strings.Contains(mcpHelp, tool.Name) {
			t.Errorf("%s is missing from kontext --help or kontext help mcp", tool.Name)
		}
	}
}

// TestSubcommandHelpListsFlags: -h of a subcommand lists its flags, and
// -h of a command with subcommands names them (they listed none).
func TestSubcommandHelpListsFlags(t *testing.T) {
	for args, want := range map[string][]string{
		"edge build -h":    {"--bundle", "--force", "--store-only"},
		"edge serve -h":    {"--port", "--store"},
		"help edge":        {"build", "serve"},
		"pr comment -h":    {"--provider", "--require"},
		"help pr":          {"comment"},
		"paths suggest -h": {"--min-confidence", "--apply"},
		"paths add -h":     {"--operation-id"},
		"paths -h":         {"add", "remove", "suggest"},
	} {
		code, out, errOut := runCLI(t, strings.Fields(args)...)
		if code != 0 {
			t.Errorf("kontext %s: exit %d: %s", args, code, errOut)
		}
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("kontext %s lacks %q:\n%s", args, w, out)
			}
		}
	}
}

// TestDidYouMean: a mistyped subcommand or global flag gets the closest
// name (usage error, exit 2).
func TestDidYouMean(t *testing.T) {
	dir := t.TempDir()
	for args, want := range map[string]string{
		"pr coment":         `did you mean "comment"?`,
		"edge biuld":        `did you mean "build"?`,
		"paths ad x y":      `did you mean "add"?`,
		"list --jsn":        "unknown flag --jsn; did you mean --json?",
		"--jsn list":        "unknown flag --jsn; did you mean --json?",
		"list --colr=never": "did you mean --color?",
	} {
		code, _, errOut := runCLI(t, append([]string{"-C", dir}, strings.Fields(args)...)...)
		if code != exitUsage || !strings.Contains(errOut, want) {
			t.Errorf("kontext %s: exit %d, stderr %q; want %q", args, code, errOut, want)
		}
	}
}
