package main

import (
	"context"
	"time"
	"unsafe"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/native"
	"github.com/kontext/kontext/native/quick"
	_ "github.com/kontext/kontext/native/quick/answer"
	"github.com/kontext/kontext/native/relay"
)

// sidecarWrite is a sidecar owed by this invocation: the early answer
// (package quick) would have taken it but found its sidecar missing or
// out of date. What the read depends on besides the knowledge files (the
// git dir's HEAD, index and branch, the local model configuration) is
// stat'ed before the read, the read records its inputs, and finish
// stores what that read answered.
type sidecarWrite struct {
	op     string
	e      *engine.Engine
	gitDir string
	git    []quick.Stat
	day    string // status: the engine's day before the read
}

// owedSidecar starts a sidecarWrite of op (quick.Governing or
// quick.Status) on e and returns ctx pinned to the read it records, or
// nil and ctx when none is owed.
func owedSidecar(ctx context.Context, g *factory, op string, e *engine.Engine) (*sidecarWrite, context.Context) {
	if quick.Owed != op || g.host.daemon || e == nil {
		return nil, ctx
	}
	_, gitDir := relay.FindRepo(e.Options().Root)
	if gitDir == "" {
		return nil, ctx
	}
	w := &sidecarWrite{op: op, e: e, gitDir: gitDir, git: quick.GitStats(gitDir)}
	if w.git == nil {
		return nil, ctx
	}
	if op == quick.Status {
		// status.revision follows the branch; status.llm reads the local
		// model configuration, and probes PATH for a command adapter,
		// which no stat data covers.
		refs, ok := quick.RefStats(gitDir)
		models := quick.PathStats(native.ModelConfigFiles(gitDir)...)
		if p, probes := e.Options().Models.(interface{ Probes() bool }); !ok || models == nil || (probes && p.Probes()) {
			return nil, ctx
		}
		w.git = append(append(w.git, refs...), models...)
		w.day = e.Today()
	}
	e.RecordInputs(true)
	pinned, err := e.Pin(ctx)
	if err != nil {
		return nil, ctx // the command reports it when it reads
	}
	return w, pinned
}

// finish writes the governing sidecar of the pinned read. It is a cache:
// failing to write one (a read-only git dir) changes nothing. The answer
// is built only when the sidecar will be written: not over racy inputs
// (the first call after an edit), where quick.Write would refuse it.
func (w *sidecarWrite) finish(ctx context.Context) {
	var stats []quick.Stat
	a, _, start, ok := w.e.GoverningSidecar(ctx, func(inputs []engine.Input, start time.Time) bool {
		var ok bool
		stats, ok = w.stats(inputs)
		return ok && !quick.Racy(stats, start)
	})
	if !ok {
		return
	}
	answer := a.Append(nil)
	w.write(unsafe.String(unsafe.SliceData(answer), len(answer)), stats, start) // answer is not written again
}

// finishStatus writes the status sidecar of the pinned read, whose
// answer printed output; not when the day turned during the read.
func (w *sidecarWrite) finishStatus(ctx context.Context, output []byte) {
	inputs, start, ok := w.e.StatusInputs(ctx)
	if !ok || w.e.Today() != w.day {
		return
	}
	if stats, ok := w.stats(inputs); ok {
		w.write(quick.StatusAnswer(w.day, string(output)), stats, start)
	}
}

// stats are the stat data the sidecar records: the git dir's, then the
// read's inputs'; ok is false when one cannot be recorded.
func (w *sidecarWrite) stats(inputs []engine.Input) ([]quick.Stat, bool) {
	stats := make([]quick.Stat, 0, len(w.git)+len(inputs))
	stats = append(stats, w.git...)
	for _, in := range inputs {
		s, ok := quick.StatOf(in.Path, in.Info)
		if !ok {
			return nil, false
		}
		stats = append(stats, s)
	}
	return stats, true
}

func (w *sidecarWrite) write(answer string, stats []quick.Stat, start time.Time) {
	f := &quick.File{Op: w.op, Fingerprint: relay.ClientFingerprint(), Root: w.e.Options().Root, Aliases: w.e.Options().RootAliases, Answer: answer, Stats: stats}
	quick.Write(w.gitDir, f, start)
}
