package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/itchyny/gojq"
	"golang.org/x/term"

	"github.com/kontext/kontext/engine/apierr"
)

// out is one command's standard output: it knows whether it is a terminal
// (colour, width) and keeps stream integrity — it counts the lines that
// got through, stops at the first failed write, and says so.
type out struct {
	w      io.Writer
	tty    bool
	color  bool
	width  int // 0 = unlimited (not a terminal)
	lines  int // complete lines written
	err    error
	broken bool         // the reader went away (EPIPE)
	human  *neutraliser // set for human text: control characters are neutralised
}

func newOut(w io.Writer, g *factory) *out {
	o := &out{w: w}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		o.tty = true
		if wd, _, err := term.GetSize(int(f.Fd())); err == nil && wd > 20 {
			o.width = wd
		}
	}
	o.width = columns(g, o.width)
	switch g.color {
	case "always":
		o.color = true
	case "never":
		o.color = false
	default: // auto: a terminal, unless NO_COLOR; CLICOLOR_FORCE forces
		o.color = o.tty && os.Getenv("NO_COLOR") == ""
		if v := os.Getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
			o.color = true
		}
	}
	return o
}

func (o *out) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	if o.human != nil {
		if _, err := o.write(o.human.feed(p, false)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return o.write(p)
}

// flush writes what the neutraliser still holds (the end of human text).
func (o *out) flush() {
	if o.human != nil && o.err == nil {
		o.write(o.human.feed(nil, true))
	}
}

func (o *out) write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	o.lines += bytes.Count(p[:n], []byte("\n"))
	if err != nil {
		o.err = err
		o.broken = readerGone(err)
	}
	return n, err
}

// finish turns a failed stream into the exit code: a reader that went away
// ends quietly with 0 (it asked for no more); any other failure (disk full)
// exits 1 with one line naming the stream and how much got through.
func (o *out) finish(stderr io.Writer, code int, total int) int {
	if o.err == nil {
		return code
	}
	if o.broken {
		return exitOK
	}
	lost := "the rest"
	if total > o.lines {
		lost = fmt.Sprint(total - o.lines)
	}
	fmt.Fprintf(stderr, "kontext: writing the output failed: stdout: %d lines written, %s lost: %v\n", o.lines, lost, o.err)
	return exitFailed
}

// paint wraps s in an SGR colour when colour is on.
func (o *out) paint(code, s string) string {
	if !o.color || s == "" {
		return s
	}
	esc := "\x1b"
	if o.human != nil {
		esc = o.human.mark // the neutraliser lets exactly these through
	}
	return esc + "[" + code + "m" + s + esc + "[0m"
}

// jq runs a jq program over a JSON document and writes each result.
func runJQ(w io.Writer, program string, doc []byte) error {
	q, err := gojq.Parse(program)
	if err != nil {
		return apierr.Invalid("--jq %q: %v", program, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return apierr.Invalid("--jq %q: %v", program, err)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	v = normalizeNumbers(v)
	iter := code.Run(v)
	for {
		r, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, isErr := r.(error); isErr {
			var halt *gojq.HaltError
			if errors.As(err, &halt) && halt.Value() == nil {
				return nil
			}
			return apierr.Invalid("--jq: %v", err)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			return err
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
	}
}

// normalizeNumbers turns json.Number into int or float64, as gojq expects.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil && !strings.ContainsAny(x.String(), ".eE") {
			return int(i)
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = normalizeNumbers(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = normalizeNumbers(x[k])
		}
	}
	return v
}
