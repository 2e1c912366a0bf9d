package main

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// progressFor reports long work: NDJSON events on stderr with --progress
// jsonl; on a terminal, a status line that appears only when the work
// takes a while and is cleared when it ends; nothing when piped.
func progressFor(g *factory) func(event, task string, fields map[string]any) {
	if g.progress == "jsonl" {
		var mu sync.Mutex
		return func(event, task string, fields map[string]any) {
			ev := map[string]any{"event": event, "task": task, "at": time.Now().UTC().Format(time.RFC3339Nano)}
			for k, v := range fields {
				ev[k] = v
			}
			line, _ := json.Marshal(ev)
			mu.Lock()
			defer mu.Unlock()
			g.io.ErrOut.Write(append(line, '\n'))
		}
	}
	if !g.io.ErrTTY {
		return nil
	}
	var mu sync.Mutex
	var timer *time.Timer
	shown := false
	return func(event, task string, fields map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		switch event {
		case "start":
			timer = time.AfterFunc(300*time.Millisecond, func() {
				mu.Lock()
				defer mu.Unlock()
				shown = true
				fmt.Fprintf(g.io.ErrOut, "kontext: %s…", describeTask(task))
			})
		case "done":
			if timer != nil {
				timer.Stop()
			}
			if shown {
				fmt.Fprintf(g.io.ErrOut, "\r\x1b[K")
				shown = false
			}
		}
	}
}

func describeTask(task string) string {
	if task == "history.index" {
		return "indexing git history (cached for next time)"
	}
	return task
}
