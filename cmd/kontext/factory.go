package main

import (
	"context"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/native"
)

// IOStreams are the streams of one invocation (the shape gh uses): every
// command, emit and the progress reporter write only to these.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// IsTTY says Out is a terminal; ErrTTY says ErrOut is one.
	IsTTY, ErrTTY bool
}

// System returns the process's streams.
func System() IOStreams {
	return IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		IsTTY: term.IsTerminal(int(os.Stdout.Fd())), ErrTTY: term.IsTerminal(int(os.Stderr.Fd()))}
}

// Streams wraps non-terminal streams (tests, pipes).
func Streams(in io.Reader, out, errOut io.Writer) IOStreams {
	s := IOStreams{In: in, Out: out, ErrOut: errOut}
	if f, ok := out.(*os.File); ok {
		s.IsTTY = term.IsTerminal(int(f.Fd()))
	}
	if f, ok := errOut.(*os.File); ok {
		s.ErrTTY = term.IsTerminal(int(f.Fd()))
	}
	return s
}

// engine returns the invocation's engine over -C dir, opened on first use
// and shared by every call of the command (kontext ci reads the
// repository once, not once per question).
func (f *factory) engine() (*engine.Engine, error) {
	if f.eng == nil && f.engErr == nil {
		f.eng, f.engErr = native.OpenWith(f.dir, native.Options{Progress: f.prog.engineProgress(), Person: true})
	}
	return f.eng, f.engErr
}

// read runs a typed read of the invocation's engine, e.g.
// read(ctx, g, (*engine.Engine).Drift, &api.DriftInput{…}).
func read[I, O any](ctx context.Context, g *factory, op func(*engine.Engine, context.Context, *I) (O, error), in *I) (O, error) {
	e, err := g.engine()
	if err != nil {
		var zero O
		return zero, err
	}
	return op(e, ctx, in)
}

// call runs a typed operation function of engine/drafts or
// engine/worktree on the invocation's engine, e.g.
// call(ctx, g, drafts.Stage, &api.StageInput{…}).
func call[I, O any](ctx context.Context, g *factory, op func(context.Context, *engine.Engine, *I) (O, error), in *I) (O, error) {
	e, err := g.engine()
	if err != nil {
		var zero O
		return zero, err
	}
	return op(ctx, e, in)
}

// status answers status on the invocation's engine.
func (g *factory) status(ctx context.Context) (*api.StatusResult, error) {
	e, err := g.engine()
	if err != nil {
		return nil, err
	}
	return e.Status(ctx)
}

func intp(n int) *int { return &n }
