package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

// jsonErrs is stderr under --json: flag errors are written as the API
// error envelope instead of text.
type jsonErrs struct{ io.Writer }

// flags is a command's flag set. Its errors are kontext's own (unknown
// flag → "did you mean", then the command's one-line usage), never the
// flag package's dump of every default. A help probe (helpFlags) collects
// the set here.
func flags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { shortCommandUsage(fs.Output(), name) }
	if p, ok := stderr.(*probe); ok {
		p.sets = append(p.sets, fs)
	}
	return fs
}

// parseInterleaved parses flags that may come after positional arguments.
// An unknown flag is refused before parsing, with a suggestion.
func parseInterleaved(fs *flag.FlagSet, args []string) (pos []string, err error) {
	if _, ok := fs.Output().(*probe); ok {
		// Every flag is defined by now: the help probe has what it came for.
		panic(probeDone{})
	}
	// Under --json a usage error is the API error envelope on stderr.
	stderr := fs.Output()
	if j, ok := stderr.(jsonErrs); ok {
		fs.SetOutput(io.Discard)
		defer fs.SetOutput(stderr)
		defer func() {
			if err != nil && !errors.Is(err, flag.ErrHelp) {
				msg := err.Error()
				if !strings.HasPrefix(msg, "kontext ") {
					msg = fmt.Sprintf("kontext %s: %s", fs.Name(), msg)
				}
				j.Write(append(engine.ErrorEnvelope(apierr.Invalid("%s", msg)), '\n'))
			}
		}()
	}
	if err := checkFlags(fs, args); err != nil {
		return nil, err
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// checkFlags walks args the way the flag package does (a non-boolean flag
// takes the next argument unless written --name=value) and reports the
// first flag the command does not define.
func checkFlags(fs *flag.FlagSet, args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "h" || name == "help" {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			names := globalNames()
			fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
			msg := fmt.Sprintf("kontext %s: unknown flag %s", fs.Name(), a)
			if s := suggest(name, names); s != "" {
				msg += "; did you mean " + dashes(s) + "?"
			}
			fmt.Fprintln(fs.Output(), msg)
			shortCommandUsage(fs.Output(), fs.Name())
			return errors.New(msg)
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if !hasValue {
			i++
		}
	}
	return nil
}

func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// shortCommandUsage is the two lines an error ends with: the command's
// synopsis and where its full help is.
func shortCommandUsage(w io.Writer, name string) {
	root, _, _ := strings.Cut(name, " ")
	if c := find(root); c != nil {
		fmt.Fprintf(w, "Usage: kontext %s %s\n", c.name, c.args)
	}
	fmt.Fprintf(w, "Run 'kontext %s -h' for its flags and an example.\n", name)
}

// shortUsage is what a global usage error ends with (never the whole help).
func shortUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: kontext [global flags] <command> [arguments]\nRun 'kontext help' for the commands, 'kontext <command> -h' for one.\n")
}

// globalNames are the names (no dashes) of the flags every command takes.
func globalNames() []string {
	var out []string
	for _, f := range globalFlags {
		if n := strings.TrimLeft(f, "-"); len(n) > 1 {
			out = append(out, n)
		}
	}
	return out
}

// subcommandOf says a subcommand word is not one of subs, with the closest
// one: "kontext pr coment: unknown subcommand; did you mean comment?".
func subcommandOf(cmd, word string, subs ...string) string {
	msg := fmt.Sprintf("kontext %s %s: unknown subcommand (%s)", cmd, word, strings.Join(subs, ", "))
	if s := suggest(word, subs); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", s)
	}
	return msg
}

// unknownCommand reports a command name kontext does not have (or a
// global flag it does not know, written before the command).
func unknownCommand(w io.Writer, name string) int {
	msg := fmt.Sprintf("kontext: unknown command %q", name)
	if s := suggest(name, commandNames()); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	if flagName, ok := strings.CutPrefix(name, "-"); ok {
		flagName = strings.TrimPrefix(flagName, "-")
		msg = fmt.Sprintf("kontext: unknown flag %s", name)
		if s := suggest(flagName, globalNames()); s != "" {
			msg += "; did you mean " + dashes(s) + "?"
		}
	}
	fmt.Fprintln(w, msg)
	shortUsage(w)
	return exitUsage
}

// suggest returns the candidate closest to name (edit distance at most a
// third of its length, at least 1, or a prefix either way), or "".
func suggest(name string, candidates []string) string {
	best, bestD := "", 1<<30
	limit := max(1, len(name)/3)
	for _, c := range candidates {
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if (strings.HasPrefix(c, name) || strings.HasPrefix(name, c)) && len(name) >= 2 && len(c) >= 2 {
			d = min(d, limit)
		}
		if d <= limit && d < bestD {
			best, bestD = c, d
		}
	}
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

// probe is the stderr of a help probe: the command runs with it until its
// flags are defined (parseInterleaved stops it there), so -h lists the
// flags the command really parses — one source, no second table.
type probe struct{ sets []*flag.FlagSet }

func (p *probe) Write(b []byte) (int, error) { return len(b), nil }

type probeDone struct{}

// errProbe keeps a help probe from opening the repository.
var errProbe = apierr.New(apierr.OperationFailed, "help probe")

// helpFlags returns the flag sets command c defines for args (a
// subcommand word such as "paths suggest" selects its own set).
func helpFlags(c *command, args []string) (sets []*flag.FlagSet) {
	switch c.name {
	case "man", "completion", "mcp":
		// No flags of their own, and man and completion probe every
		// command themselves: probing them would recurse.
		return nil
	}
	p := &probe{}
	g := &factory{dir: ".", color: "never", probing: true,
		io: IOStreams{In: strings.NewReader(""), Out: p, ErrOut: p}}
	var words []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			break
		}
		words = append(words, a)
	}
	// Commands with subcommands: the subcommand named, else each of them.
	subs := map[string][]string{"edge": {"build", "serve"}, "pr": {"comment"}, "paths": {"add", "remove", "suggest"}}
	if subs[c.name] == nil {
		words = nil
	}
	if len(words) == 0 && subs[c.name] != nil {
		for _, s := range subs[c.name] {
			sets = append(sets, helpFlags(c, []string{s})...)
		}
		return sets
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing a probe starts may run
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(probeDone); !ok {
					panic(r)
				}
			}
		}()
		c.run(ctx, g, words)
	}()
	return p.sets
}

// commandHelp is `kontext <command> -h`: synopsis, what it does, every
// flag on one line, the global flags, an example.
func commandHelp(w io.Writer, c *command, args []string) {
	name := c.name
	sets := helpFlags(c, args)
	if len(sets) == 1 {
		name = sets[0].Name() // the subcommand's: paths add, edge build, pr comment
	}
	fmt.Fprintf(w, "Usage: kontext %s %s\n\n%s\n", c.name, c.args, c.summary)
	if lines := flagLines(sets); len(lines) > 0 {
		fmt.Fprintf(w, "\nFlags (%s):\n", name)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
	fmt.Fprintf(w, "\nGlobal flags: -C dir, --json, --jq expr, --text, --output-format json|text, --wide,\n  --color auto|always|never, --progress jsonl (kontext -h explains them)\n")
	fmt.Fprintf(w, "\nExample:\n  %s\n", c.example)
}

// flagLines is one line per flag: "  --name value   usage".
func flagLines(sets []*flag.FlagSet) []string {
	type row struct{ left, usage string }
	var rows []row
	seen := map[string]bool{}
	width := 0
	for _, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			if seen[f.Name] {
				return
			}
			seen[f.Name] = true
			value, usage := flag.UnquoteUsage(f)
			if value == "value" { // a repeatable flag (a flag.Value of strings)
				value = "string"
			}
			left := dashes(f.Name)
			if value != "" {
				left += " " + value
			}
			if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "[]" {
				usage += fmt.Sprintf(" (default %s)", d)
			}
			rows = append(rows, row{left, usage})
			width = max(width, len(left))
		})
	}
	sort.SliceStable(rows, func(i, j int) bool { return strings.TrimLeft(rows[i].left, "-") < strings.TrimLeft(rows[j].left, "-") })
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = fmt.Sprintf("  %-*s  %s", width, r.left, r.usage)
	}
	return lines
}
