package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/kontext/kontext/engine/api"
)

// setupFlags declares kontext setup's flags: --detect (the default),
// --no-detect, --dry-run; input reads them with the arguments.
func setupFlags(fs *pflag.FlagSet) (input func(args []string, stderr io.Writer) (*api.SetupInput, error)) {
	det := fs.Bool("detect", true, "detect existing knowledge (ADR logs, Cursor/Copilot rules, AGENTS.md) and append new sources to the config")
	noDet := fs.Bool("no-detect", false, "skip detection")
	dry := fs.Bool("dry-run", false, "show what would be detected and written; change nothing")
	return func(pos []string, stderr io.Writer) (*api.SetupInput, error) {
		if len(pos) > 0 {
			fmt.Fprintf(stderr, "kontext setup takes no arguments, got %q\n", pos)
			return nil, fmt.Errorf("arguments")
		}
		detect := *det && !*noDet
		return &api.SetupInput{Detect: &detect, DryRun: *dry}, nil
	}
}

// printSetup prints what setup found (with entry counts), wrote and created.
func printSetup(w io.Writer, s *api.SetupResult) {
	if len(s.Detected) > 0 {
		fmt.Fprintln(w, "found:")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, d := range s.Detected {
			state := "new"
			if d.Configured {
				state = "already configured"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d %s\t%s\n", d.Dir, d.Kind, d.Style, d.Entries, plural(d.Entries, "entry", "entries"), state)
		}
		tw.Flush()
	}
	cfg := ".kontext.toml"
	if s.ConfigSource.Path != nil {
		cfg = *s.ConfigSource.Path
	}
	if s.DryRun {
		if s.ConfigText == nil {
			fmt.Fprintln(w, "dry run: the configuration would not change; nothing written")
			return
		}
		fmt.Fprintf(w, "dry run: nothing written; the configuration would be:\n\n%s", *s.ConfigText)
		return
	}
	if s.ConfigWritten && !slices.Contains(s.Created, cfg) {
		fmt.Fprintf(w, "appended the new sources to %s\n", cfg)
	}
	for _, c := range s.Created {
		fmt.Fprintf(w, "created %s\n", c)
	}
	if len(s.Created) == 0 && !s.ConfigWritten {
		fmt.Fprintf(w, "nothing to do: %s is set up\n", s.Root)
	}
}

// printAdoptionHint: status on a repository whose knowledge is not read yet.
func printAdoptionHint(w io.Writer, s *api.StatusResult) {
	if s.Hint == nil {
		return
	}
	fmt.Fprintln(w, "\nno entries yet, but this repository keeps knowledge kontext can read:")
	for _, d := range s.Detected {
		fmt.Fprintf(w, "  %s (%s, %s): %d %s\n", d.Dir, d.Kind, d.Style, d.Entries, plural(d.Entries, "entry", "entries"))
	}
	fmt.Fprintln(w, "run: kontext setup --detect")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
