package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/drafts"
)

// derivedOperationID is the operation_id of a CLI write: "cli-<cmd>-" and
// the first 24 hex digits of the sha256 of the command name and the
// canonical JSON of what the user asked for. The same command with the
// same input gets the same id, so a rerun after the process was killed
// resumes the stored plan (and a rerun after it finished replays the
// result, writing nothing twice) instead of starting a second write.
//
// input is the user's input only: positional arguments, flags that change
// what is written, and the body. Never values the CLI reads from the
// repository or the clock — an entry's current revision (it changes when
// the write lands), today's date of an `## Added <date>` section (it
// changes at midnight) — or a rerun would get another id and write again.
func derivedOperationID(cmd string, input any) string {
	data, _ := json.Marshal(input)
	h := sha256.New()
	h.Write([]byte(cmd))
	h.Write([]byte{0})
	h.Write(data)
	return "cli-" + cmd + "-" + hex.EncodeToString(h.Sum(nil))[:24]
}

// writeCtx is ctx carrying the command line that resumes this
// invocation's write (status's incomplete_operations names it). note
// says what the line cannot carry (a body piped in or typed in the
// editor: the rerun needs the same one).
func (g *factory) writeCtx(ctx context.Context, note string) context.Context {
	line := "kontext " + shellJoin(g.argv)
	if note != "" {
		line += " (" + note + ")"
	}
	return drafts.WithCommand(ctx, line)
}

// shellJoin quotes args for a POSIX shell where needed.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellQuote(a)
	}
	return strings.Join(out, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// storedRequest fills in with the request stored with the unfinished
// plan of opID; false when there is none (build the request anew). A
// rerun sends it unchanged, so it resumes that plan even where the request
// the CLI would build now differs (the entry's revision once its file was
// written, today's date in an extend).
func storedRequest(g *factory, opID string, in any) (bool, error) {
	e, err := g.engine()
	if err != nil {
		return false, err
	}
	raw, err := drafts.StoredInput(e, opID)
	if err != nil || len(raw) == 0 {
		return false, err
	}
	if err := json.Unmarshal(raw, in); err != nil {
		return false, apierr.Wrap(apierr.OperationFailed, err, "the stored request of operation %q is unreadable", opID)
	}
	return true, nil
}

// replayed reads a replayed write's stored result (a map): the path and
// the entry id it staged.
func replayed(res any) (path, id string, ok bool) {
	m, isMap := res.(map[string]any)
	if !isMap || m["replayed"] != true {
		return "", "", false
	}
	path, _ = m["path"].(string)
	if e, isEntry := m["entry"].(map[string]any); isEntry {
		id, _ = e["id"].(string)
	}
	return path, id, path != "" && id != ""
}

// priorResult is priorWrite's stored result of a finished write (nil
// when there is none), as any.
func priorResult(ctx context.Context, g *factory, opID string) (any, error) {
	done, _, err := priorWrite(ctx, g, opID)
	if done == nil || err != nil {
		return nil, err
	}
	return done, nil
}

// priorWrite looks up the receipt of a derived operation_id: done is the
// stored result (answered as a replay: nothing is written again, even
// when the request the CLI would build now differs, e.g. by the entry's
// revision after the write landed); pending says a plan is stored and
// unfinished (the write resumes it). Neither: no receipt.
func priorWrite(ctx context.Context, g *factory, opID string) (done map[string]any, pending bool, err error) {
	res, err := call(ctx, g, drafts.OperationsGet, &api.OperationsGetInput{OperationID: opID})
	switch apierr.CodeOf(err) {
	case "":
	case apierr.NotFound:
		return nil, false, nil
	case apierr.OperationIncomplete:
		return nil, true, nil
	default:
		return nil, false, err
	}
	m, ok := res.(map[string]any)
	if !ok {
		return nil, false, nil
	}
	delete(m, "state")
	m["replayed"] = true
	return m, false, nil
}
