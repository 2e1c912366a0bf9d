package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native"
)

// maxStdin is the largest input read from stdin (2 MiB).
const maxStdin = 2 << 20

// runAPI is `kontext api <operation> [<json>|-]`: exactly one JSON document
// on stdout, non-zero exit on error.
func runAPI(ctx context.Context, g *factory, args []string) int {
	stdout, stderr, stdin := g.io.Out, g.io.ErrOut, g.io.In
	if len(args) < 1 || len(args) > 2 {
		env := engine.ErrorEnvelope(apierr.Invalid("usage: kontext api <operation> [<json>|-]"))
		stdout.Write(append(env, '\n'))
		return exitUsage
	}
	op := args[0]
	input := []byte("{}")
	if len(args) == 2 {
		input = []byte(args[1])
		if args[1] == "-" {
			data, err := io.ReadAll(io.LimitReader(stdin, maxStdin+1))
			if err != nil {
				return apiFail(stdout, apierr.Wrap(apierr.OperationFailed, err, "reading stdin"))
			}
			if len(data) > maxStdin {
				return apiFail(stdout, apierr.Invalid("stdin holds more than %d bytes (2 MiB); send a smaller document", maxStdin))
			}
			input = data
		}
	}
	g.prog.state("running " + op)
	env := request(ctx, g, op, input)
	code := exitForEnvelope(env)
	if code != exitOK {
		g.failure = envelopeError(env)
	}
	o := newOut(stdout, g)
	if g.jq != "" {
		// --jq filters the envelope (success or error); the exit code stays the envelope's.
		if err := runJQ(o, g.jq, env); err != nil && o.err == nil {
			return apiFail(stdout, err)
		}
		return o.finish(stderr, code, 0)
	}
	if g.text {
		// --text: the same envelope, indented for reading.
		var buf bytes.Buffer
		if json.Indent(&buf, env, "", "  ") == nil {
			buf.WriteByte('\n')
			o.Write(buf.Bytes())
			return o.finish(stderr, code, bytes.Count(buf.Bytes(), []byte("\n")))
		}
	}
	o.Write(append(env, '\n'))
	return o.finish(stderr, code, 1)
}

// request is native.Request with the invocation's progress reporter told
// about long work (the history index build).
func request(ctx context.Context, g *factory, op string, input []byte) []byte {
	dir, err := native.TargetDir(g.dir, input)
	if err != nil {
		return engine.ErrorEnvelope(err)
	}
	e, err := native.OpenWith(dir, native.Options{Progress: g.prog.engineProgress()})
	if err != nil {
		return engine.ErrorEnvelope(err)
	}
	return e.Request(ctx, op, input)
}

// envelopeError is the error of a failed envelope (for the progress
// stream's error event).
func envelopeError(env []byte) *apierr.Error {
	var e struct {
		Error apierr.Error `json:"error"`
	}
	if json.Unmarshal(env, &e) != nil || e.Error.Code == "" {
		return nil
	}
	return &e.Error
}

func apiFail(stdout io.Writer, err error) int {
	stdout.Write(append(engine.ErrorEnvelope(err), '\n'))
	return exitFor(err)
}
