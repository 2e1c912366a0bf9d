package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/kontext/kontext/engine/apierr"
)

// reporter is one command's progress stream (README "Progress events").
// With --progress jsonl every event is one JSON object on its own line on
// stderr with "type" and "flow" (the command): state {message},
// progress {file_index, file_count, file_path}, file_done {file_path,
// output_path?}, and exactly one last event: complete {duration_ms,
// files_processed, message?} or error {code, message}. On a terminal the
// events drive a status line that appears only when the work takes a
// while and is cleared at the end; piped without the flag, nothing.
//
// The stream keeps the same integrity as stdout: a reader that went away
// stops it quietly; any other failed write makes the command fail with one
// line saying how many events got through.
type reporter struct {
	g     *factory
	flow  string
	jsonl bool
	tty   bool
	start time.Time

	mu      sync.Mutex
	files   int   // files processed (file_done events)
	written int   // events written whole
	lost    int   // events not written after a failure
	err     error // the first failed write
	broken  bool  // the reader went away

	timer  *time.Timer
	shown  bool
	status string
	// summary is the complete event's message under --progress jsonl
	// (what the command would otherwise say on stderr).
	summary string
}

// carry makes msg, a human line the command would print on stderr, the
// message of the closing complete event when stderr is the JSON lines
// stream (which carries nothing else); it reports whether it did.
func (r *reporter) carry(msg string) bool {
	if r == nil || !r.jsonl {
		return false
	}
	r.mu.Lock()
	r.summary = msg
	r.mu.Unlock()
	return true
}

// jsonlErr reports whether stderr is the JSON lines stream, which carries
// nothing else.
func (r *reporter) jsonlErr() bool { return r != nil && r.jsonl }

func newReporter(g *factory, flow string) *reporter {
	r := &reporter{g: g, flow: flow, jsonl: g.progress == "jsonl", start: time.Now()}
	r.tty = !r.jsonl && g.io.ErrTTY
	return r
}

// state says what the command is doing now.
func (r *reporter) state(message string) {
	r.event(map[string]any{"type": "state", "message": message})
}

// step reports that file i (1-based) of n is being worked on.
func (r *reporter) step(i, n int, path string) {
	r.event(map[string]any{"type": "progress", "file_index": i, "file_count": n, "file_path": path})
}

// fileDone reports a finished file, and the file written for it if any.
func (r *reporter) fileDone(path, output string) {
	if r == nil {
		return
	}
	ev := map[string]any{"type": "file_done", "file_path": path}
	if output != "" {
		ev["output_path"] = output
	}
	r.mu.Lock()
	r.files++
	r.mu.Unlock()
	r.event(ev)
}

// engineProgress adapts the engine's long-work callback (the history index
// build) to state events.
func (r *reporter) engineProgress() func(event, task string, fields map[string]any) {
	if r == nil || (!r.jsonl && !r.tty) {
		return nil
	}
	return func(event, task string, fields map[string]any) {
		ev := map[string]any{"type": "state", "task": task}
		switch event {
		case "start":
			ev["message"] = describeTask(task)
		case "done":
			ev["message"] = describeTask(task) + ": done"
			if n, ok := fields["commits"]; ok {
				ev["commits"] = n
				if task == "history.index" {
					ev["message"] = fmt.Sprintf("git history indexed: %v commits", n)
				}
			}
			if ms, ok := fields["ms"]; ok {
				ev["duration_ms"] = ms
			}
		default:
			ev["message"] = describeTask(task) + ": " + event
		}
		r.event(ev)
	}
}

func describeTask(task string) string {
	if task == "history.index" {
		return "indexing git history"
	}
	return task
}

func (r *reporter) event(ev map[string]any) {
	if r == nil || (!r.jsonl && !r.tty) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tty {
		r.terminal(ev)
		return
	}
	if r.err != nil {
		if !r.broken {
			r.lost++
		}
		return
	}
	ev["flow"] = r.flow
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil {
		return
	}
	n, err := r.g.io.ErrOut.Write(buf.Bytes())
	if err == nil && n < buf.Len() {
		err = fmt.Errorf("short write")
	}
	if err != nil {
		r.err, r.broken = err, readerGone(err)
		if !r.broken {
			r.lost++
		}
		return
	}
	r.written++
}

// terminal draws the status line: shown 300 ms after work starts, so a
// quick command prints nothing.
func (r *reporter) terminal(ev map[string]any) {
	switch ev["type"] {
	case "state":
		r.status = fmt.Sprint(ev["message"])
	case "progress":
		r.status = fmt.Sprintf("%s %d/%d %v", r.flow, ev["file_index"], ev["file_count"], ev["file_path"])
	case "complete", "error":
		if r.timer != nil {
			r.timer.Stop()
		}
		if r.shown {
			fmt.Fprint(r.g.io.ErrOut, "\r\x1b[K")
			r.shown = false
		}
		return
	default:
		return
	}
	if r.shown {
		r.draw()
		return
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(300*time.Millisecond, func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			if r.status != "" {
				r.shown = true
				r.draw()
			}
		})
	}
}

func (r *reporter) draw() {
	line := "kontext: " + r.status + "…"
	if rs := []rune(line); len(rs) > 79 {
		line = string(rs[:78]) + "…"
	}
	fmt.Fprintf(r.g.io.ErrOut, "\r\x1b[K%s", neutral(line))
}

// end closes the stream with complete or error and turns a failed progress
// stream into a failure: a truncated stream never looks finished.
func (r *reporter) end(ctx context.Context, code int) int {
	if r == nil {
		return code
	}
	ms := time.Since(r.start).Milliseconds()
	switch {
	case ctx.Err() != nil || code == exitInterrupted:
		r.event(map[string]any{"type": "error", "code": "interrupted", "message": "interrupted"})
	case code == exitOK || code == exitFound || code == exitOverBudget:
		ev := map[string]any{"type": "complete", "duration_ms": ms, "files_processed": r.files}
		switch code {
		case exitFound:
			ev["message"] = "a check found something (exit 3)"
		case exitOverBudget:
			ev["message"] = "over budget with nothing left to drop (exit 10)"
		default:
			if r.summary != "" {
				ev["message"] = r.summary
			}
		}
		r.event(ev)
	default:
		e := r.g.failure
		if e == nil {
			c := apierr.OperationFailed
			if code == exitUsage {
				c = apierr.InvalidInput
			}
			e = apierr.New(c, "%s failed (exit %d)", r.flow, code)
		}
		r.event(map[string]any{"type": "error", "code": e.Code, "message": neutral(e.Message)})
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil || r.broken {
		return code
	}
	fmt.Fprintf(r.g.io.ErrOut, "kontext: writing the output failed: progress (stderr): %d events written, %d lost: %v\n", r.written, r.lost, r.err)
	if code == exitOK || code == exitFound || code == exitOverBudget {
		return exitFailed
	}
	return code
}
