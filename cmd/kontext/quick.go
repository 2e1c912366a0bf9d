package main

import (
	"context"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/native/quick"
	_ "github.com/kontext/kontext/native/quick/answer"
	"github.com/kontext/kontext/native/relay"
)

// sidecarWrite is a governing sidecar owed by this invocation: the early
// answer (package quick) would have taken it but found its sidecar
// missing or out of date. The git dir's HEAD and index are stat'ed before
// the read, the read records its inputs, and finish stores what that read
// answered.
type sidecarWrite struct {
	e      *engine.Engine
	gitDir string
	git    []quick.Stat
}

// owedSidecar starts a sidecarWrite and returns ctx pinned to the read it
// records, or nil and ctx when none is owed.
func owedSidecar(ctx context.Context, g *factory) (*sidecarWrite, context.Context) {
	if !quick.Stale || g.host.daemon {
		return nil, ctx
	}
	e, err := g.engine()
	if err != nil {
		return nil, ctx
	}
	_, gitDir := relay.FindRepo(e.Options().Root)
	if gitDir == "" {
		return nil, ctx
	}
	w := &sidecarWrite{e: e, gitDir: gitDir, git: quick.GitStats(gitDir)}
	if w.git == nil {
		return nil, ctx
	}
	e.RecordInputs(true)
	pinned, err := e.Pin(ctx)
	if err != nil {
		return nil, ctx // the command reports it when it reads
	}
	return w, pinned
}

// finish writes the sidecar of the pinned read. It is a cache: failing to
// write one (a read-only git dir) changes nothing.
func (w *sidecarWrite) finish(ctx context.Context) {
	a, inputs, start, ok := w.e.GoverningSidecar(ctx)
	if !ok {
		return
	}
	f := &quick.File{Fingerprint: relay.ClientFingerprint(), Root: w.e.Options().Root, Aliases: w.e.Options().RootAliases, Answer: string(a.Append(nil))}
	f.Stats = make([]quick.Stat, 0, len(w.git)+len(inputs))
	f.Stats = append(f.Stats, w.git...)
	for _, in := range inputs {
		s, ok := quick.StatOf(in.Path, in.Info)
		if !ok {
			return
		}
		f.Stats = append(f.Stats, s)
	}
	quick.Write(w.gitDir, f, start)
}
