package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/internal/report"
	"github.com/kontext/kontext/internal/table"
)

func runLintCmd(g *factory, fs *pflag.FlagSet) runFunc {
	client := fs.String("client", "", "only the findings about this client (and those about none): "+strings.Join(clientNames(), ", "))
	strict := fs.Bool("strict", false, "exit 3 when there is any finding")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		if len(args) > 0 {
			return usageErr(g, stderr, "kontext lint takes no arguments (it reads every rule file); got %q", args[0])
		}
		if msg := badClient(*client); msg != "" {
			return usageErr(g, stderr, "%s", msg)
		}
		res, err := read(ctx, g, (*engine.Engine).Lint, &api.LintInput{Client: *client})
		if err != nil {
			return fail(g, stderr, err)
		}
		code := emit(g, stdout, res, func(w io.Writer) { printLint(w, res) })
		if res.Files == 0 && !printAdoptionHintOf(ctx, g, stderr) {
			// "0 findings" alone would be a silent wrong answer (on stderr:
			// the JSON stays what it is).
			fmt.Fprintln(stderr, "kontext reads no agent rule files here; kontext setup adds the AGENTS.md, CLAUDE.md, Cursor and Copilot files a repository keeps")
		}
		if code == exitOK && *strict && len(res.Findings) > 0 {
			return exitFound
		}
		return code
	}
}

// printLint writes the findings as blocks: the rule, severity and what
// it is about, then each location with its quoted line.
func printLint(w io.Writer, res *api.LintResult) {
	for _, f := range res.Findings {
		head := f.RuleID + "  " + f.Severity
		if f.Fact != "" {
			head += "  " + f.Fact
		}
		if f.Client != nil {
			head += "  " + *f.Client
		}
		if f.BytesWasted != nil {
			head += fmt.Sprintf(", %d bytes read twice", *f.BytesWasted)
		}
		if f.Similarity != nil {
			head += fmt.Sprintf("  similarity %.2f", *f.Similarity)
		}
		fmt.Fprintln(w, head)
		width := 0
		for _, l := range f.Locations {
			width = max(width, len(fmt.Sprintf("%s:%d", l.File, l.Line)))
		}
		for i, l := range f.Locations {
			at := fmt.Sprintf("%s:%d", l.File, l.Line)
			fmt.Fprintf(w, "  %-*s  %s\n", width, at, table.Cut(f.Quotes[i], 100))
		}
	}
	var parts []string
	rules := make([]string, 0, len(res.Counts))
	for r := range res.Counts {
		rules = append(rules, r)
	}
	slices.Sort(rules)
	for _, r := range rules {
		parts = append(parts, fmt.Sprintf("%d %s", res.Counts[r], r))
	}
	summary := fmt.Sprintf("%d %s in %d %s", len(res.Findings), plural(len(res.Findings), "finding", "findings"), res.Files, plural(res.Files, "rule file", "rule files"))
	if len(parts) > 0 {
		summary += " (" + strings.Join(parts, ", ") + ")"
	}
	fmt.Fprintln(w, summary)
}

// lintNotes counts the ci results that are rules.lint findings.
func lintNotes(results []report.Result) int {
	n := 0
	for _, r := range results {
		if report.IsLint(r.Rule) {
			n++
		}
	}
	return n
}
