//go:build !(js && wasm)

package engine

import (
	"context"
	"os"
	"time"
	"unicode/utf8"

	"github.com/kontext/kontext/engine/internal/kb"
	"github.com/kontext/kontext/engine/sidecar"
)

// The early answers' sidecars are written by the native CLI only: the
// WebAssembly build links none of this.

// RecordInputs makes the engine's reads collect the paths they consume
// with their stat data, for GoverningSidecar and StatusInputs.
func (e *Engine) RecordInputs(on bool) { e.reader.Record(on) }

// Input is one path a read consumed with its stat data from before it was
// read (Info nil: absent).
type Input struct {
	Path string
	Info os.FileInfo
}

// GoverningSidecar returns the governing sidecar of the knowledge base as
// ctx reads it (pinned: see Pin), with the paths that read consumed and
// when it started, so that a native writer can record their stat data.
// ok is false when a sidecar could not stand for the read: its inputs
// were not recorded or cannot tell a change by stat data alone (a
// symbolic link on the way), or some text it would print is not plain
// (a control character or invalid UTF-8, which the human output rewrites),
// and when accept, given the inputs before the answer is built, refuses
// them (a writer that will not store a sidecar over racy inputs need not
// have the answer built: at 10,000 entries that is most of the work).
func (e *Engine) GoverningSidecar(ctx context.Context, accept func([]Input, time.Time) bool) (a *sidecar.Answer, inputs []Input, start time.Time, ok bool) {
	st, inputs, start, ok := e.readInputs(ctx)
	if !ok || !accept(inputs, start) {
		return nil, nil, time.Time{}, false
	}
	a = &sidecar.Answer{Snapshot: st.Snap.ID, Entries: make([]sidecar.Entry, st.Snap.Len())}
	for i := range a.Entries {
		en := st.Snap.Entry(i)
		if !plain(en.Kind, en.ID, en.Title, en.Status) {
			return nil, nil, time.Time{}, false
		}
		for _, p := range en.Paths {
			if !plain(p) {
				return nil, nil, time.Time{}, false
			}
		}
		a.Entries[i] = sidecar.Entry{Kind: en.Kind, ID: en.ID, Title: en.Title, Status: strp(en.Status), Authority: authority(en), Rank: kb.KindRank(en.Kind)}
	}
	a.Index = st.Snap.Governing().Encoded()
	return a, inputs, start, true
}

// StatusInputs returns the paths the read of ctx (pinned: see Pin)
// consumed and when it started, for a status sidecar; ok is false as for
// GoverningSidecar, and for a knowledge base with no entries: status then
// looks for adoptable sources across the working tree, which no recorded
// input covers.
func (e *Engine) StatusInputs(ctx context.Context) (inputs []Input, start time.Time, ok bool) {
	st, inputs, start, ok := e.readInputs(ctx)
	if !ok || st.Snap.Len() == 0 {
		return nil, time.Time{}, false
	}
	return inputs, start, true
}

func (e *Engine) readInputs(ctx context.Context) (*State, []Input, time.Time, bool) {
	st, err := e.Read(ctx)
	if err != nil {
		return nil, nil, time.Time{}, false
	}
	in, start, ok := e.reader.Inputs(st.Snap)
	if !ok {
		return nil, nil, time.Time{}, false
	}
	inputs := make([]Input, len(in))
	for i, x := range in {
		inputs[i] = Input{Path: x.Path, Info: x.Info}
	}
	return st, inputs, start, true
}

// plain reports whether every s is valid UTF-8 without control characters
// (C0, DEL, C1): text the human output prints unchanged.
func plain(ss ...string) bool {
	for _, s := range ss {
		for _, r := range s {
			if r == utf8.RuneError || r < 0x20 || (r >= 0x7f && r <= 0x9f) {
				return false
			}
		}
	}
	return true
}
