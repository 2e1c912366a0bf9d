package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"

	"github.com/kontext/kontext/engine"
)

// runManCmd is `kontext man [--dir DIR]`: the man page kontext(1) in roff
// from cobra's doc generator, with every command, its flags and an
// example; --dir writes a page per command (kontext-governing.1, …) too.
func runManCmd(g *factory, fs *pflag.FlagSet) runFunc {
	dir := fs.String("dir", "", "write kontext.1 and a page per command into `DIR` instead of stdout")
	return func(ctx context.Context, args []string) int {
		stderr := g.io.ErrOut
		if len(args) > 0 {
			return usageErr(g, stderr, "kontext man takes no arguments (got %q)", args[0])
		}
		root := g.root
		withTools(root)
		header := &doc.GenManHeader{Title: "KONTEXT", Section: "1", Date: manDate(),
			Source: "kontext " + engine.Version, Manual: "User Commands"}
		root.DisableAutoGenTag = true
		long := root.Long
		root.Long = long + "\n\n" + manCommands(root) + "# LICENSE\n\n" + License + "\n"
		var page bytes.Buffer
		err := doc.GenMan(root, header, &page)
		root.Long = long
		if err != nil {
			return fail(g, stderr, err)
		}
		if *dir == "" {
			g.io.Out.Write(roffASCII(page.Bytes()))
			return exitOK
		}
		if err := os.MkdirAll(*dir, 0o755); err != nil {
			return fail(g, stderr, err)
		}
		if err := doc.GenManTreeFromOpts(root, doc.GenManTreeOptions{Header: header, Path: *dir, CommandSeparator: "-"}); err != nil {
			return fail(g, stderr, err)
		}
		if err := filepath.WalkDir(*dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".1") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, roffASCII(b), 0o644)
		}); err != nil {
			return fail(g, stderr, err)
		}
		if err := os.WriteFile(filepath.Join(*dir, "kontext.1"), roffASCII(page.Bytes()), 0o644); err != nil {
			return fail(g, stderr, err)
		}
		return exitOK
	}
}

// manCommands is the COMMANDS section of kontext(1) in the Markdown the
// doc generator reads: each command's synopsis, what it does, its own
// flags and an example.
func manCommands(root *cobra.Command) string {
	var b strings.Builder
	b.WriteString("# COMMANDS\n\n")
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			if !s.IsAvailableCommand() && s.Name() != "help" {
				continue
			}
			fmt.Fprintf(&b, "### %s\n\n`%s`\n\n%s\n\n", s.CommandPath(), s.UseLine(), mdEscape(s.Short))
			if f := s.LocalNonPersistentFlags(); f.HasAvailableFlags() {
				fmt.Fprintf(&b, "```\n%s```\n\n", f.FlagUsages())
			}
			if s.Example != "" {
				fmt.Fprintf(&b, "Example:\n\n```\n%s\n```\n\n", s.Example)
			}
			walk(s)
		}
	}
	walk(root)
	return b.String()
}

// mdEscape keeps text literal in Markdown.
func mdEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "<", `\<`, ">", `\>`, "[", `\[`, "]", `\]`, "#", `\#`).Replace(s)
}

// roffASCII writes every character beyond ASCII as groff's \[uXXXX], so
// groff -ww reads the page without a warning in any locale.
func roffASCII(page []byte) []byte {
	var b bytes.Buffer
	for _, r := range string(page) {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, `\[u%04X]`, r)
	}
	return b.Bytes()
}

// manDate is the page's date, fixed for a build: SOURCE_DATE_EPOCH, else
// the commit time the build stamped, else the time in a pseudo-version,
// else the epoch. The same build gives the same page.
func manDate() *time.Time {
	at := func(t time.Time) *time.Time { t = t.UTC(); return &t }
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return at(time.Unix(n, 0))
		}
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" {
				if t, err := time.Parse(time.RFC3339, s.Value); err == nil {
					return at(t)
				}
			}
		}
	}
	// A pseudo-version: v0.0.0-20260102150405-abcdefabcdef.
	if parts := strings.Split(engine.Version, "-"); len(parts) >= 3 {
		stamp := parts[len(parts)-2]
		if i := strings.LastIndex(stamp, "."); i >= 0 {
			stamp = stamp[i+1:]
		}
		if t, err := time.Parse("20060102150405", stamp); err == nil {
			return at(t)
		}
	}
	return at(time.Unix(0, 0))
}
