package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/internal/mcpserver"
)

// The command tree is github.com/spf13/cobra (as gh's): commands, flags,
// help with examples, did-you-mean, completions and the man page come
// from it. Each command declares its flags on its own flag set and
// returns the function that runs it with its positional arguments.

// runFunc runs a command with its positional arguments, flags parsed.
type runFunc func(ctx context.Context, args []string) int

// command is one entry of the command table.
type command struct {
	use     string // the name and its synopsis: "governing <path>… [--min-specificity N]"
	short   string
	example string
	// run is a command without flags of its own; flags declares a
	// command's flags on fs and returns its run.
	run   func(ctx context.Context, g *factory, args []string) int
	flags func(g *factory, fs *pflag.FlagSet) runFunc
	// subs are real subcommands; subOnly: the command itself only names
	// them (kontext edge alone is a usage error).
	subs    []command
	subOnly bool
	// values are the values a flag takes, for completion.
	values map[string][]string
}

// kinds are the values of --kind (completion).
var kinds = []string{"decision", "convention", "learning", "incident", "architecture"}

// commandTable is every command kontext has, in the order of the help.
func commandTable() []command {
	return []command{
		{use: "api <operation> [<json>|-]", short: "call the JSON application API (one JSON document on stdout)",
			example: "kontext api entries.governing '{\"paths\":[\"src/billing/tax/vat.go\"]}'\nkontext api drafts.stage - < request.json", run: runAPI},
		{use: "status", short: "storage, config source, counts per kind and status, review due", example: "kontext status", run: runStatusCmd},
		{use: "setup [--detect|--no-detect] [--dry-run]", short: "detect the knowledge the repository keeps (ADR logs, Cursor/Copilot rules, AGENTS.md) and write the config; create the knowledge directories (idempotent, no hooks)",
			example: "kontext setup --dry-run", flags: runSetupCmd},
		{use: "list [--kind K] [--tag T] [--all]", short: "table of entries", example: "kontext list --kind decision", flags: runListCmd, values: map[string][]string{"kind": kinds}},
		{use: "show <id>", short: "one entry (id, id prefix, ADR number or file path)", example: "kontext show 7", run: runShowCmd},
		{use: "search <query>", short: "ranked search hits", example: "kontext search rounding", flags: runSearchCmd},
		{use: "governing <path>… [--min-specificity N] [--client C [--cwd DIR]]", short: "which entries govern these files, and why (rule, specificity); with --client, what that coding agent loads for them",
			example: "kontext governing src/billing/tax/vat.go\nkontext governing --client codex --cwd services services/api/handler.go", flags: runGoverningCmd, values: map[string][]string{"client": clientNames()}},
		{use: "paths <entry>", short: "an entry's paths and where they come from (file, overlay); stage globs into the path overlay (add, remove); suggest globs for entries without paths (staged only with --apply)",
			example: "kontext paths 0007\nkontext paths add 0007 'src/db/**'\nkontext paths suggest --all --apply", run: runPathsCmd,
			subs: []command{
				{use: "add <entry> <glob>…", short: "stage globs into an entry's path overlay", example: "kontext paths add 0007 'src/db/**'", flags: pathsSetCmd("add")},
				{use: "remove <entry> <glob>…", short: "stage the removal of globs from an entry's paths", example: "kontext paths remove 0007 'src/legacy/**'", flags: pathsSetCmd("remove")},
				{use: "suggest [<entry>…|--all] [--max N] [--apply [--min-confidence 0.6]]", short: "suggest globs for entries without paths (staged only with --apply)",
					example: "kontext paths suggest --all --apply", flags: runPathsSuggest},
			}},
		{use: "drift [--base R] [--head R] [--kind K]… [--fail]", short: "entries whose governed files changed after their last look",
			example: "kontext drift --base origin/main --fail", flags: runDriftCmd, values: map[string][]string{"kind": kinds}},
		{use: "changed <base> <head>", short: "entries added, revised, superseded or deprecated between two revisions",
			example: "kontext changed origin/main HEAD", flags: runChangedCmd, values: map[string][]string{"kind": kinds}},
		{use: "lint [--client C] [--strict]", short: "agent rule files taken together: the same instruction in several files (bytes each client reads twice), near-duplicates, contradictions (npm vs pnpm, versions, always/never), files a client never loads",
			example: "kontext lint\nkontext lint --client cursor --json", flags: runLintCmd, values: map[string][]string{"client": clientNames()}},
		{use: "ci [--strict] [--base R] [--head R] [--notice] [--format text|github|sarif|codeclimate|json] [--fail-on none|drift|any]", short: "diagnostics, drift, review due and failing verifies for a CI job; with a base only what touches the change; annotations, SARIF, Code Climate",
			example: "kontext ci --base origin/main --format github --notice", flags: runCICmd,
			values: map[string][]string{"format": {"text", "github", "sarif", "codeclimate", "json"}, "fail-on": {"none", "drift", "any"}}},
		{use: "pr comment", short: "the pull-request (GitHub) or merge-request (GitLab) comment with the review of the change",
			example: "kontext pr comment --base origin/main", subOnly: true,
			subs: []command{
				{use: "comment [--pr N] [--base R] [--head R] [--provider github|gitlab] [--require]", short: "post or update the one pull-request (GitHub) or merge-request (GitLab) comment with the review of the change",
					example: "kontext pr comment --base origin/main", flags: runPRCmd, values: map[string][]string{"provider": {"github", "gitlab"}}},
			}},
		{use: "confirm <id>… [--because \"…\"] [--kind read|agent] [--migrate-legacy]", short: "record that entries still hold: checked line + ledger line, staged (never committed)",
			example: "kontext confirm 2026-04-14-nightly-export-is-a-cronjob --because \"re-read after the lock fix\"", flags: runConfirmCmd, values: map[string][]string{"kind": {"read", "agent"}}},
		{use: "new <kind> \"<title>\" [--path P]… [--tag T]… [--supersedes ID]… [--summary S] [--status S] [--body B | --edit] [--force]", short: "stage a new entry (never committed); the body from --body, $EDITOR on the kind's template at a terminal, or stdin",
			example: "kontext new convention \"Log with slog\" --path 'src/**/*.go'", flags: runNewCmd},
		{use: "supersede <id> \"<new title>\" [--path P]…", short: "stage a new entry that supersedes id",
			example: "kontext supersede 0003 \"Use PostgreSQL\"", flags: runSupersedeCmd},
		{use: "related \"<text>\" [--path P]… [--llm]", short: "entries related to a new insight (wording, overlapping paths); --llm asks the local model how they relate",
			example: "kontext related \"VAT is rounded per invoice\" --llm", flags: runRelatedCmd},
		{use: "extract [<file>|-] [--max N] [--source S]", short: "candidate entries a local model finds in a text (nothing written)",
			example: "kontext extract review-thread.md --max 3", flags: runExtractCmd},
		{use: "revise <id> --objection \"…\"…", short: "a replacement draft from the local model that answers the objections (nothing written)",
			example: "kontext revise 2026-01-14-vat-is-rounded-per-line --objection \"loses cents on long invoices\"", flags: runReviseCmd},
		{use: "extend <id> \"<text>\" [--dry-run]", short: "add text verbatim under ## Added <today> to a convention, learning or incident, staged (the rest of the file unchanged)",
			example: "kontext extend 2026-08-28-log-with-slog \"Use slog.Group for request attributes.\"", flags: runExtendCmd},
		{use: "accept <id>", short: "a proposed decision becomes accepted: its status word is rewritten where the file keeps it, staged",
			example: "kontext accept 0007", run: runAcceptCmd},
		{use: "reject <id>", short: "a proposed decision becomes rejected, staged", example: "kontext reject 0007", run: runRejectCmd},
		{use: "retire <id> --reason \"…\"", short: "mark an entry deprecated with a ## Retired note, staged",
			example: "kontext retire 2026-01-12-export-runs-in-api-process --reason \"replaced by the CronJob\"", flags: runRetireCmd},
		{use: "verify <id> [--because \"…\"]", short: "run the entry's pinned verify command; ledger line staged (exit 3 when it fails or times out)",
			example: "kontext verify 2026-01-14-vat-is-rounded-per-line", flags: runVerifyCmd},
		{use: "trust --verify <id>", short: "show an entry's verify command and pin it in your trust.toml (asks; terminal only)",
			example: "kontext trust --verify 2026-01-14-vat-is-rounded-per-line", flags: runTrustCmd},
		{use: "brief [<path>…] [--diff <base>] [--budget-lines N] [--architecture]", short: "budgeted context for an agent or reviewer: governing rules in authority order, and what was left out",
			example: "kontext brief src/billing/tax/vat.go --budget-lines 80", flags: runBriefCmd},
		{use: "cost [<path>…|--diff <base>] [--client C] [--cwd DIR]", short: "context cost per coding agent: the bytes and estimated tokens of what it loads for these files, the largest files, what was cut",
			example: "kontext cost services/billing/invoice.go\nkontext cost --diff origin/main --client codex --cwd services", flags: runCostCmd, values: map[string][]string{"client": clientNames()}},
		{use: "bundle [--base R] [--head R | --worktree] -o file.json", short: "write a knowledge bundle (kontext.bundle/v1) for the review console or the edge worker: committed, team-visible entries at HEAD (--worktree: uncommitted too)",
			example: "kontext bundle --base origin/main -o bundle.json", flags: runBundleCmd},
		{use: "edge build|serve|publish", short: "the edge worker: governing lookups and MCP over HTTP on Cloudflare Workers / workerd from bundles (build: a deployable directory; serve: a local workerd on 127.0.0.1; publish: a bundle into its KV store)",
			example: "kontext edge build -o edge --bundle app=bundle.json\nkontext edge serve --bundle bundle.json --port 8787\nkontext edge publish --repo app --namespace-id 0f2ac74b498b48028cb68387c421e279", subOnly: true,
			subs: []command{
				{use: "build -o DIR --bundle [NAME=]FILE… [--name N]", short: "write a deployable Worker directory from bundles",
					example: "kontext edge build -o edge --bundle app=bundle.json", flags: runEdgeBuild},
				{use: "serve [--port P] --bundle [NAME=]FILE… [--store DIR]", short: "serve the edge worker on a local workerd on 127.0.0.1",
					example: "kontext edge serve --bundle bundle.json --port 8787", flags: runEdgeServe},
				{use: "publish --repo NAME [--bundle FILE] (--namespace-id ID | --binding B [--config F]) [--local [--persist-to DIR]]", short: "write this repository's bundle into the worker's KV store through wrangler (bundle, index, repos.json; idempotent)",
					example: "kontext edge publish --repo app --namespace-id 0f2ac74b498b48028cb68387c421e279", flags: runEdgePublish},
			}},
		{use: "review [--base R] [--head R] [--port P] [--no-open] [--out file.html] [--format markdown]", short: "the review console for this change: served on 127.0.0.1, or one self-contained HTML file, or (--format markdown) the pull-request comment body",
			example: "kontext review --out review.html\nkontext review --format markdown --base origin/main", flags: runReviewCmd, values: map[string][]string{"format": {"markdown"}}},
		{use: "capture --kind K --title T [--path P]… [--tag T]… [--source S] [--body B]", short: "keep an insight as a local inbox candidate (secrets and e-mail addresses redacted; body from stdin)",
			example: "kontext capture --kind learning --title \"VAT ids are checked upstream\" --path 'src/billing/**' < note.md", flags: runCaptureCmd, values: map[string][]string{"kind": kinds}},
		{use: "promote <candidate> [--path P]", short: "stage a captured candidate as a new entry (never committed)", example: "kontext promote cand-1a2b3c4d5e6f", flags: runPromoteCmd},
		{use: "repair", short: "rewrite lagging checked lines from the ledger and restore missing reciprocal supersede metadata; staged", example: "kontext repair", flags: runRepairCmd},
		{use: "inbox [--state pending|dismissed|promoted|all]", short: "this worktree's captured candidates and challenges", example: "kontext inbox --state all", flags: runInboxCmd, values: map[string][]string{"state": {"pending", "dismissed", "promoted", "all"}}},
		{use: "drop <candidate> [--reason \"…\"]", short: "dismiss an inbox candidate", example: "kontext drop cand-1a2b3c4d5e6f --reason \"duplicate\"", flags: runDropCmd},
		{use: "challenge <id> --because \"…\"", short: "record in the inbox that an entry may no longer hold (never staged)",
			example: "kontext challenge 2026-01-12-money-is-integer-cents --because \"we store micros now\"", flags: runChallengeCmd},
		{use: "version", short: "the version, API version and license (--json: also commit, Go version, os/arch)", example: "kontext version --json", run: runVersionCmd},
		{use: "man [--dir DIR]", short: "the man page kontext(1) in roff (--dir: a page per command written into DIR)", example: "kontext man > kontext.1", flags: runManCmd},
		{use: "mcp [--http host:port [--token-env NAME]]", short: "MCP server over stdio, or over Streamable HTTP at host:port/mcp (tools " + toolsMark + ")",
			example: "kontext -C ~/src/app mcp\nkontext -C ~/src/app mcp --http 127.0.0.1:8765", flags: runMCPCmd},
	}
}

// globals are the values of the global flags before the output choice is
// resolved (--jq > --json > --text > --output-format).
type globals struct {
	json, version bool
	format        string
}

// newRoot is the command tree of one invocation over g.
func newRoot(g *factory) *cobra.Command {
	var gl globals
	root := &cobra.Command{
		Use:   "kontext [global flags] <command> [arguments]",
		Short: "git-native project knowledge: which decisions, conventions and learnings govern these files, and why",
		Long: `kontext: git-native project knowledge. Which decisions, conventions and
learnings govern these files, and why.

kontext reads the decisions (ADRs), conventions, learnings, incidents and
architecture notes a repository keeps as Markdown, and answers which of them
govern which files. It stages new and changed entries into the git index and
never commits. kontext mcp serves the MCP tools ` + toolsMark + `.

Global flags go before or after the command. Exit codes: 0 ok, 1 operational
error, 2 usage or invalid input, 3 a check found something, 10 brief over
budget, 130 interrupted.`,
		Example:       indent("kontext governing src/billing/tax/vat.go\nkontext api status\nkontext help governing"),
		SilenceErrors: true,
		// cobra's suggestions: a name within two edits, or a prefix.
		SuggestionsMinimumDistance: 2,
		SilenceUsage:               true,
		DisableFlagsInUseLine:      true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return nil
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return g.resolve(cmd, gl)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			// kontext alone: the usage, exit 2.
			cmd.SetOut(g.io.Out)
			cmd.Help()
			g.code = exitUsage
			return nil
		},
	}
	pf := root.PersistentFlags()
	pf.StringVarP(&g.dir, "directory", "C", ".", "run as if started in `dir`")
	pf.BoolVar(&gl.json, "json", false, "print JSON instead of text (stable, never truncated; errors go to stderr as the API envelope)")
	pf.StringVar(&g.jq, "jq", "", "filter the JSON with a jq program `expr` (implies --json)")
	pf.BoolVar(&g.text, "text", false, "human text (the default; kontext api: the envelope indented)")
	pf.StringVar(&gl.format, "output-format", "", "the output choice as a value, `json|text` (precedence: --jq > --json > --text > --output-format)")
	pf.BoolVar(&g.wide, "wide", false, "tables show every column whole (default: fit the terminal or $COLUMNS)")
	pf.StringVar(&g.color, "color", "auto", "when to colour: `auto|always|never` (auto: only on a terminal; NO_COLOR disables, CLICOLOR_FORCE forces)")
	pf.StringVar(&g.progress, "progress", "", "stream progress events as `jsonl`: JSON lines on stderr, each with a type (state, progress, file_done, complete, error) and the flow (the command)")
	pf.BoolVar(&gl.version, "version", false, "print the version (--json: the version object)")
	root.MarkPersistentFlagDirname("directory")
	values := map[string][]string{"output-format": {"json", "text"}, "color": {"auto", "always", "never"}, "progress": {"jsonl"}}
	for name, vs := range values {
		root.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(vs, cobra.ShellCompDirectiveNoFileComp))
	}
	g.root = root
	root.SetFlagErrorFunc(flagError)
	help := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		withTools(root)
		help(c, args)
	})
	for _, c := range commandTable() {
		root.AddCommand(c.cobra(g))
	}
	root.SetHelpCommand(helpCommand(root))
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			completionCommand(g, c)
		}
	}
	return root
}

// completionCommand completes cobra's completion command: examples, a
// usage error without a shell, and bash completing file names as such.
func completionCommand(g *factory, c *cobra.Command) {
	c.Use = "completion bash|zsh|fish|powershell"
	c.Short = "a shell completion script: commands, subcommands, flags and their values"
	c.DisableFlagsInUseLine = true
	c.Example = indent("kontext completion bash > /etc/bash_completion.d/kontext")
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return &usageError{msg: "kontext completion: name one shell: bash, zsh, fish or powershell", cmd: cmd}
		}
		msg := fmt.Sprintf("kontext completion: unknown shell %q (bash, zsh, fish or powershell)", args[0])
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += fmt.Sprintf("; did you mean %q?", s[0])
		}
		return &usageError{msg: msg, cmd: cmd}
	}
	c.SuggestionsMinimumDistance = 2
	for _, s := range c.Commands() {
		s.Example = indent("kontext completion " + s.Name())
		if s.Name() == "bash" {
			s.RunE = func(cmd *cobra.Command, args []string) error {
				noDesc, _ := cmd.Flags().GetBool("no-descriptions")
				var b bytes.Buffer
				if err := cmd.Root().GenBashCompletionV2(&b, !noDesc); err != nil {
					return err
				}
				_, err := g.io.Out.Write(bashFilenames(b.Bytes()))
				return err
			}
		}
	}
}

// bashFilenames makes cobra's bash script complete file names as such
// (-o filenames: a directory gets its slash, special characters are
// quoted), and works without the bash-completion package too (its
// _get_comp_words_by_ref and _filedir, simplified).
func bashFilenames(script []byte) []byte {
	s := strings.ReplaceAll(string(script), "complete -o default -F __start_kontext kontext",
		"complete -o default -o filenames -F __start_kontext kontext")
	s = strings.ReplaceAll(s, "complete -o default -o nospace -F __start_kontext kontext",
		"complete -o default -o filenames -o nospace -F __start_kontext kontext")
	return []byte(s + `
# Without the bash-completion package: its word splitting (simplified)
# and directories for -C.
if ! declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
    _get_comp_words_by_ref() {
        while [[ $# -gt 0 ]]; do
            case $1 in
            -n) shift ;;
            cur) cur=${COMP_WORDS[COMP_CWORD]} ;;
            prev) prev=${COMP_WORDS[COMP_CWORD-1]} ;;
            words) words=("${COMP_WORDS[@]}") ;;
            cword) cword=$COMP_CWORD ;;
            esac
            shift
        done
    }
fi
if ! declare -F _filedir >/dev/null 2>&1; then
    _filedir() {
        local IFS=$'
'
        if [[ $1 == -d ]]; then
            COMPREPLY+=($(compgen -d -- "$cur"))
        else
            COMPREPLY+=($(compgen -f -- "$cur"))
        fi
    }
fi
`)
}

func init() {
	cobra.EnableCommandSorting = false // the table's order
}

// indent is an example as cobra's help shows it: each line indented.
func indent(example string) string {
	return "  " + strings.ReplaceAll(example, "\n", "\n  ")
}

// cobra is the cobra.Command of c.
func (c command) cobra(g *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:                        c.use,
		Short:                      c.short,
		Example:                    indent(c.example),
		DisableFlagsInUseLine:      true,
		SuggestionsMinimumDistance: 2,
	}
	run := func(ctx context.Context, args []string) int { return c.run(ctx, g, args) }
	if c.flags != nil {
		run = c.flags(g, cmd.Flags())
	}
	if c.subOnly {
		run = func(ctx context.Context, args []string) int {
			var names []string
			for _, s := range c.subs {
				names = append(names, strings.Fields(s.use)[0])
			}
			if len(args) == 0 {
				return usageErr(g, g.io.ErrOut, "%s needs a subcommand: %s", cmd.CommandPath(), strings.Join(names, " or "))
			}
			msg := fmt.Sprintf("%s %s: unknown subcommand (%s)", cmd.CommandPath(), args[0], strings.Join(names, " or "))
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf("; did you mean %q?", s[0])
			}
			return usageErr(g, g.io.ErrOut, "%s", msg)
		}
	}
	if len(c.subs) > 0 && !c.subOnly {
		// A command with arguments of its own and subcommands (paths
		// <entry> | paths add …): a first argument close to a subcommand's
		// name, with more after it, is a mistyped subcommand.
		own := run
		run = func(ctx context.Context, args []string) int {
			if len(args) > 1 {
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					return usageErr(g, g.io.ErrOut, "%s %s: unknown subcommand; did you mean %q?", cmd.CommandPath(), args[0], s[0])
				}
			}
			return own(ctx, args)
		}
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		g.prog = newReporter(g, strings.Fields(cmd.CommandPath())[1])
		g.code = g.prog.end(ctx, run(ctx, args))
		return nil
	}
	for name, vs := range c.values {
		cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(vs, cobra.ShellCompDirectiveNoFileComp))
	}
	for _, s := range c.subs {
		cmd.AddCommand(s.cobra(g))
	}
	return cmd
}

// toolsMark stands for the MCP tools in help text until it is shown
// (withTools): their table is built on first use, which an invocation
// that shows no help must not pay for.
const toolsMark = "{{mcp tools}}"

// withTools writes the MCP tools' names into the help text of root's tree.
func withTools(root *cobra.Command) {
	names, _ := mcpserver.Tools()
	list := strings.Join(names, ", ")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Short = strings.ReplaceAll(c.Short, toolsMark, list)
		c.Long = strings.ReplaceAll(c.Long, toolsMark, list)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// errDone ends an invocation that has answered (kontext --version).
var errDone = errors.New("done")

// resolve checks the global flags and makes the output choice.
func (g *factory) resolve(cmd *cobra.Command, gl globals) error {
	switch {
	case g.jq != "" || gl.json:
		g.json, g.text = true, false
	case g.text:
		g.json = false
	case gl.format != "":
		g.json, g.text = gl.format == "json", gl.format == "text"
	}
	if gl.format != "" && gl.format != "json" && gl.format != "text" {
		return &usageError{msg: fmt.Sprintf("--output-format takes json or text, not %q", gl.format)}
	}
	if g.color != "auto" && g.color != "always" && g.color != "never" {
		return &usageError{msg: fmt.Sprintf("--color takes auto, always or never, not %q", g.color)}
	}
	if g.progress != "" && g.progress != "jsonl" {
		return &usageError{msg: fmt.Sprintf("--progress takes jsonl, not %q", g.progress)}
	}
	if gl.version {
		if g.json {
			g.code = runVersionCmd(cmd.Context(), g, nil) // --version --json: the version object
		} else {
			fmt.Fprintf(g.io.Out, "kontext %s (api %d)\n", engine.Version, engine.APIVersion)
		}
		return errDone
	}
	return nil
}

// usageError is a usage error of the command line: the reason, then the
// command's one-line usage (cmd) or the global one.
type usageError struct {
	msg string
	cmd *cobra.Command // nil: a global usage error
}

func (e *usageError) Error() string { return e.msg }

// report writes err the way kontext reports usage errors and returns the
// exit code: under --json the API error envelope, else the reason and a
// short usage (never the whole help).
func (g *factory) report(ctx context.Context, err error, jsonWanted bool) int {
	if errors.Is(err, errDone) {
		return g.code
	}
	var ue *usageError
	if !errors.As(err, &ue) {
		ue = &usageError{msg: err.Error()}
	}
	if ue.cmd != nil && ue.cmd.HasParent() && g.progress == "jsonl" {
		// The progress stream of the command ends with the error event.
		defer func() {
			g.failure = apierr.As(apierr.Invalid("%s", ue.msg))
			newReporter(g, strings.Fields(ue.cmd.CommandPath())[1]).end(ctx, exitUsage)
		}()
	}
	w := g.io.ErrOut
	if jsonWanted || g.json {
		w.Write(append(engine.ErrorEnvelope(apierr.Invalid("%s", ue.msg)), '\n'))
		return exitUsage
	}
	if strings.HasPrefix(ue.msg, "kontext ") {
		fmt.Fprintln(w, ue.msg)
	} else {
		fmt.Fprintf(w, "kontext: %s\n", ue.msg)
	}
	if ue.cmd != nil && ue.cmd.HasParent() {
		fmt.Fprintf(w, "Usage: %s\nRun '%s -h' for its flags and an example.\n", ue.cmd.UseLine(), ue.cmd.CommandPath())
	} else {
		shortUsage(w)
	}
	return exitUsage
}

// shortUsage is what a global usage error ends with.
func shortUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: kontext [global flags] <command> [arguments]\nRun 'kontext help' for the commands, 'kontext <command> -h' for one.\n")
}

// unknownCommand is the usage error of a command name kontext does not
// have, with cobra's suggestion.
func unknownCommand(root *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if s := root.SuggestionsFor(name); len(s) > 0 {
		msg += fmt.Sprintf("; did you mean %q?", s[0])
	}
	return &usageError{msg: msg}
}

// flagError turns a flag parse error into a usage error of the command
// in kontext's words; a mistyped flag gets the nearest flag suggested.
func flagError(cmd *cobra.Command, err error) error {
	path := cmd.CommandPath()
	var (
		notExist *pflag.NotExistError
		invalid  *pflag.InvalidValueError
		required *pflag.ValueRequiredError
	)
	var msg string
	switch {
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		if name == "" { // a shorthand: -x
			name = notExist.GetSpecifiedShortnames()
			msg = fmt.Sprintf("%s: unknown flag -%s", path, name)
		} else {
			msg = fmt.Sprintf("%s: unknown flag --%s", path, name)
		}
		if s := nearestFlag(cmd, name); s != "" {
			msg += "; did you mean " + s + "?"
		}
	case errors.As(err, &invalid):
		cause := err.Error()
		if c := errors.Unwrap(invalid); c != nil {
			cause = c.Error()
			if _, after, ok := strings.Cut(cause, ": "); ok && strings.HasPrefix(cause, "strconv.") {
				_, cause, _ = strings.Cut(after, ": ")
			}
		}
		msg = fmt.Sprintf("%s: invalid value %q for --%s: %s", path, invalid.GetValue(), invalid.GetFlag().Name, cause)
	case errors.As(err, &required):
		msg = fmt.Sprintf("%s: --%s needs a value", path, required.GetFlag().Name)
	default:
		msg = fmt.Sprintf("%s: %v", path, err)
	}
	return &usageError{msg: msg, cmd: cmd}
}

// nearestFlag is the flag of cmd (its own or global) closest to name,
// "--name" (or "-n"), or "".
func nearestFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", 1<<30
	limit := max(1, len(name)/3)
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(strings.ToLower(name), strings.ToLower(f.Name))
		if (strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name)) && len(name) >= 2 && len(f.Name) >= 2 {
			d = min(d, limit)
		}
		if d <= limit && d < bestD {
			best, bestD = "--"+f.Name, d
		}
	})
	return best
}

// editDistance is the Damerau–Levenshtein distance (adjacent swaps cost 1).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range rb {
		d[0][j+1] = j + 1
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// helpCommand is `kontext help [command…]`: cobra's help, except that a
// command kontext does not have is a usage error with a suggestion.
func helpCommand(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:                   "help [command]",
		DisableFlagsInUseLine: true,
		Short:                 "help about any command",
		Example:               indent("kontext help governing\nkontext help paths suggest"),
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := root.Find(args)
			if err != nil || cmd == nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, s := range cmd.Commands() {
				if s.IsAvailableCommand() && strings.HasPrefix(s.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(s.Name(), s.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || cmd == nil {
				return &usageError{msg: fmt.Sprint(err)}
			}
			if len(rest) > 0 {
				if cmd == root {
					return unknownCommand(root, rest[0])
				}
				msg := fmt.Sprintf("%s %s: unknown subcommand", cmd.CommandPath(), rest[0])
				if s := cmd.SuggestionsFor(rest[0]); len(s) > 0 {
					msg += fmt.Sprintf("; did you mean %q?", s[0])
				}
				return &usageError{msg: msg, cmd: cmd}
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}

// legacyFlags are the single-dash spellings kontext has always accepted
// for these long flags: a pre-pass maps them to their double-dash form
// (pflag reads -json as -j -s -o -n).
var legacyFlags = map[string]string{"-json": "--json", "-help": "--help", "-version": "--version"}

// prepare maps the legacy spellings (before "--") and tells whether the
// command line asks for JSON, for the error of a line that fails to parse.
func prepare(args []string) (out []string, jsonWanted bool) {
	out = make([]string, len(args))
	copy(out, args)
	jq, js, text, format := false, false, false, ""
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		if d, ok := legacyFlags[a]; ok {
			out[i], a = d, d
		}
		switch {
		case a == "--json":
			js = true
		case a == "--text":
			text = true
		case a == "--jq" || strings.HasPrefix(a, "--jq="):
			jq = true
		case a == "--output-format" && i+1 < len(out):
			format = out[i+1]
		case strings.HasPrefix(a, "--output-format="):
			format = strings.TrimPrefix(a, "--output-format=")
		}
	}
	return out, jq || js || !text && format == "json"
}
