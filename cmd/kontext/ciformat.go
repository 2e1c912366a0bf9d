package main

import (
	"context"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"os"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/internal/report"
)

// CIReport is the result of kontext ci --json (and --format json).
type CIReport struct {
	Diagnostics int               `json:"diagnostics"`
	Errors      int               `json:"errors"`
	Drift       *api.DriftResult  `json:"drift"`
	ReviewDue   []string          `json:"review_due"`
	Failing     []string          `json:"failing"`
	Skipped     []api.SkippedFile `json:"skipped"` // files that are not records; never a finding
	Findings    int               `json:"findings"`
	// Results are the findings located at files (private entries left
	// out); with a base only those touching the change.
	Results []report.Result `json:"results"`
	// notes are the info diagnostics (an inferred link): the text report
	// shows them at their level, never as a finding.
	notes []api.Diagnostic
}

// changeFlags are the flags that name a change: --base and --head.
type changeFlags struct {
	base, head string
	broad      bool
}

// broadUsage is the help of --broad on drift, ci, review and pr comment.
const broadUsage = "also report broad entries (always-on rules: a ** or **/* pattern, Cursor alwaysApply, the repository-wide Copilot file, a root AGENTS.md) as drift"

// reportOptions resolves the change's base: --base, else GITHUB_BASE_REF
// (a branch name: origin/<name> in a CI checkout, else the local branch),
// else CI_MERGE_REQUEST_DIFF_BASE_SHA.
func (c changeFlags) reportOptions() report.Options {
	o := report.Options{Base: c.base, Head: c.head, Broad: c.broad}
	if o.Base == "" {
		if ref := os.Getenv("GITHUB_BASE_REF"); ref != "" {
			o.Base, o.BaseFallbacks = "origin/"+ref, []string{ref}
		} else if sha := os.Getenv("CI_MERGE_REQUEST_DIFF_BASE_SHA"); sha != "" {
			o.Base = sha
		}
	}
	return o
}

func runCICmd(g *factory, fs *pflag.FlagSet) runFunc {
	strict := fs.Bool("strict", false, "exit 3 on any finding (= --fail-on any)")
	var c changeFlags
	fs.StringVar(&c.base, "base", "", "base revision: report only findings touching the change (default: GITHUB_BASE_REF, CI_MERGE_REQUEST_DIFF_BASE_SHA, else everything)")
	fs.StringVar(&c.head, "head", "", "head revision (default: HEAD plus the working tree)")
	fs.BoolVar(&c.broad, "broad", false, broadUsage)
	notice := fs.Bool("notice", false, "add a notice per changed file naming the decisions and conventions that govern it (never a failure)")
	format := fs.String("format", "", "text, github, sarif, codeclimate or json (default text; --json = json)")
	failOn := fs.String("fail-on", "none", "exit 3 on: none, drift (drift or no drift base) or any finding")
	verbose := fs.Bool("verbose", false, "list every changed file and commit of drifted entries (the text report shows the first 5)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		switch *format {
		case "":
			*format = "text"
			if g.json {
				*format = "json"
			}
		case "text", "github", "sarif", "codeclimate", "json":
		default:
			return usageErr(g, stderr, "--format takes text, github, sarif, codeclimate or json, not %q", *format)
		}
		switch *failOn {
		case "none", "drift", "any":
		default:
			return usageErr(g, stderr, "--fail-on takes none, drift or any, not %q", *failOn)
		}
		if *strict {
			*failOn = "any"
		}
		boundHeap()
		e, err := g.engine()
		if err != nil {
			return fail(g, stderr, err)
		}
		r, err := report.Build(ctx, e, c.reportOptions().WithNotice(*notice))
		if err != nil {
			return fail(g, stderr, err)
		}
		// The whole-repository summary is only in the json and text formats.
		rep := &CIReport{Drift: r.Drift}
		if *format == "json" || *format == "text" || *failOn == "any" {
			if rep, err = ciReport(ctx, g, r); err != nil {
				return fail(g, stderr, err)
			}
		}
		var code int
		switch *format {
		case "github":
			summary := os.Getenv("GITHUB_STEP_SUMMARY")
			code = emitRaw(g, func(w io.Writer) error { return report.WriteGitHub(w, r, summary != "") })
			if code == exitOK && summary != "" {
				if err := appendStepSummary(summary, r); err != nil {
					fmt.Fprintf(stderr, "kontext: writing the job summary (GITHUB_STEP_SUMMARY): %v\n", err)
					return exitFailed
				}
			}
		case "sarif":
			code = emitRaw(g, func(w io.Writer) error {
				if err := report.WriteSARIF(w, r, engine.Version); err != nil {
					return err
				}
				_, err := io.WriteString(w, "\n")
				return err
			})
		case "codeclimate":
			code = emitRaw(g, func(w io.Writer) error {
				data, err := report.CodeClimate(r)
				if err == nil {
					_, err = w.Write(append(data, '\n'))
				}
				return err
			})
		case "json":
			g.json = true
			code = emit(g, stdout, rep, nil)
		default:
			code = emit(g, stdout, rep, func(w io.Writer) { printCI(w, rep, r, *verbose) })
		}
		if code != exitOK {
			return code
		}
		// No entry read, but knowledge kontext can read: "0 warnings" alone
		// would be a silent wrong answer (the hint goes to stderr, so the
		// SARIF, JSON and annotations stay what they are).
		if st, err := e.Read(ctx); err == nil && len(st.Snap.Entries()) == 0 {
			printAdoptionHintOf(ctx, g, stderr)
		}
		drifted := rep.Drift.BaseSource == "fallback-none" && !r.Scoped
		errs, warns, _ := report.Counts(r.Results)
		for _, res := range r.Results {
			drifted = drifted || res.Rule == "kontext/drift"
		}
		switch {
		case *failOn == "drift" && drifted, *failOn == "any" && (errs+warns > 0 || (!r.Scoped && rep.Findings > 0)):
			return exitFound
		}
		return exitOK
	}
}

// appendStepSummary appends every finding to the job summary file GitHub
// names in $GITHUB_STEP_SUMMARY (each step appends to it).
func appendStepSummary(name string, r *report.Report) error {
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := report.WriteStepSummary(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ciReport is today's ci summary (whole repository) with the located
// results of r; with a base, findings counts only the change's.
func ciReport(ctx context.Context, g *factory, r *report.Report) (*CIReport, error) {
	s, err := g.status(ctx)
	if err != nil {
		return nil, err
	}
	l, err := read(ctx, g, (*engine.Engine).List, &api.ListInput{Limit: intp(1)})
	if err != nil {
		return nil, err
	}
	rep := &CIReport{Drift: r.Drift, ReviewDue: s.ReviewDue, Failing: s.Failing, Skipped: s.Skipped, Results: r.Results}
	if rep.Results == nil {
		rep.Results = []report.Result{}
	}
	// Info diagnostics (an inferred link) are never a finding.
	for _, d := range l.Diagnostics {
		if d.Severity == "info" {
			rep.notes = append(rep.notes, d)
			continue
		}
		rep.Diagnostics++
		if d.Severity == "error" {
			rep.Errors++
		}
	}
	if r.Scoped {
		errs, warns, _ := report.Counts(r.Results)
		rep.Findings = errs + warns
		return rep, nil
	}
	rep.Findings = rep.Diagnostics + len(rep.Drift.Entries) + len(rep.ReviewDue) + len(rep.Failing)
	if rep.Drift.BaseSource == "fallback-none" {
		rep.Findings++
	}
	return rep, nil
}

func printCI(w io.Writer, rep *CIReport, r *report.Report, verbose bool) {
	fmt.Fprintf(w, "diagnostics: %d (%d errors)\n", rep.Diagnostics, rep.Errors)
	if !r.Scoped {
		for _, d := range r.Diagnostics {
			fmt.Fprintf(w, "  %s %s: %s %s\n", d.Severity, d.File, d.Code, d.Message)
		}
	}
	if len(rep.notes) > 0 && !r.Scoped {
		// A count: the notes need no action, so they never crowd the
		// findings; --verbose lists them.
		if !verbose {
			fmt.Fprintf(w, "notes:       %d (info, never a finding; --verbose lists them)\n", len(rep.notes))
		} else {
			fmt.Fprintf(w, "notes:       %d (info, never a finding)\n", len(rep.notes))
			for _, d := range rep.notes {
				fmt.Fprintf(w, "  info %s: %s %s\n", d.File, d.Code, d.Message)
			}
		}
	}
	fmt.Fprintf(w, "review due:  %d %s\n", len(rep.ReviewDue), strings.Join(rep.ReviewDue, ", "))
	fmt.Fprintf(w, "failing:     %d %s\n", len(rep.Failing), strings.Join(rep.Failing, ", "))
	if len(rep.Skipped) > 0 {
		files := make([]string, len(rep.Skipped))
		for i, sk := range rep.Skipped {
			files[i] = sk.File
		}
		fmt.Fprintf(w, "skipped:     %d not records (README, index, templates): %s\n", len(files), strings.Join(files, ", "))
	}
	if n := lintNotes(r.Results); n > 0 && !r.Scoped {
		fmt.Fprintf(w, "rule files:  %d %s (kontext lint lists them)\n", n, plural(n, "note", "notes"))
	}
	fmt.Fprintln(w)
	printDrift(w, rep.Drift, verbose)
	if r.Scoped {
		fmt.Fprintln(w)
		report.WriteText(w, r)
	}
}

// emitRaw writes a machine format (workflow commands, SARIF, Code Climate,
// Markdown) to stdout as is, with the stream rules of every command.
func emitRaw(g *factory, write func(w io.Writer) error) int {
	o := newOut(g.io.Out, g)
	if err := write(o); err != nil && o.err == nil {
		fmt.Fprintf(g.io.ErrOut, "kontext: %v\n", err)
		return exitFailed
	}
	return o.finish(g.io.ErrOut, exitOK, o.lines)
}
