package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// maxFrame is the longest stdin line the server reads (4 MiB: a tool call carries at most
// the API's 2 MiB input plus its JSON-RPC wrapping).
const maxFrame = 4 << 20

// frames reads newline-delimited JSON-RPC from in and passes on only messages the SDK can
// decode. The SDK's stdio transport ends the whole session on one malformed frame; here a
// line that is not JSON is answered with -32700, one that is JSON but not a single JSON-RPC
// 2.0 message (a batch, null, a missing "jsonrpc", a bad id) with -32600, both with id null
// as JSON-RPC prescribes when the id cannot be known, and the server keeps serving.
//
// When in ends it closes fwd (with in's error, if any), but only once every request it
// passed on has been answered on reply (or stop is closed): the SDK ends the session as
// soon as its input ends and drops the answers it is still preparing
// (modelcontextprotocol/go-sdk#1061), so `printf '<requests>' | kontext mcp` would lose
// them. A stdio server answers every request it read before it exits.
func frames(in io.Reader, fwd *io.PipeWriter, reply *lockedWriter, stop <-chan struct{}) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if tooLong {
			writeError(reply, jsonrpc.CodeInvalidRequest, "Invalid Request: the message is longer than 4 MiB")
		} else if len(bytes.TrimSpace(line)) > 0 {
			if code, msg := check(line); code != 0 {
				writeError(reply, code, msg)
			} else {
				id, cancelled := requestOf(line)
				if id != "" {
					reply.open.add(id) // before the SDK can answer it
				}
				if cancelled != "" {
					reply.open.done(cancelled) // a cancelled request may get no answer
				}
				if _, werr := fwd.Write(append(line, '\n')); werr != nil {
					return // the session ended
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			reply.open.wait(stop)
			fwd.CloseWithError(err)
			return
		}
	}
}

// requestOf returns the id of a request (a message with a method and an id), and the id
// a notifications/cancelled names; "" when there is none.
func requestOf(line []byte) (id, cancelled string) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == "" {
		return "", ""
	}
	if m.Method == "notifications/cancelled" {
		return "", idKey(m.Params.RequestID)
	}
	return idKey(m.ID), ""
}

// idKey is a JSON-RPC id as a comparable key ("" for none or null): the SDK answers with
// the id it read, a string or an integer.
func idKey(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	switch x := v.(type) {
	case string:
		return "s" + x
	case float64:
		return "n" + strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

// pending counts the requests passed to the SDK that are not answered yet.
type pending struct {
	mu      sync.Mutex
	ids     map[string]int
	changed chan struct{} // closed and replaced whenever a request is answered
}

func (p *pending) add(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids == nil {
		p.ids, p.changed = map[string]int{}, make(chan struct{})
	}
	p.ids[id]++
}

func (p *pending) done(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids[id] == 0 {
		return
	}
	if p.ids[id]--; p.ids[id] == 0 {
		delete(p.ids, id)
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

// wait returns when every request is answered, or when stop is closed.
func (p *pending) wait(stop <-chan struct{}) {
	for {
		p.mu.Lock()
		if len(p.ids) == 0 {
			p.mu.Unlock()
			return
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-stop:
			return
		}
	}
}

// readLine returns the next line without its newline; a line over maxFrame is
// skipped to its end and reported as too long.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > maxFrame+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}

// check says whether a line is one JSON-RPC 2.0 message the SDK accepts; if not, the
// error code and message to answer.
func check(line []byte) (int64, string) {
	if !json.Valid(line) {
		return jsonrpc.CodeParseError, "Parse error: the line is not JSON"
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil || obj == nil {
		return jsonrpc.CodeInvalidRequest, "Invalid Request: a message is one JSON object (batches are not supported)"
	}
	if v, ok := obj["jsonrpc"]; !ok || string(bytes.TrimSpace(v)) != `"2.0"` {
		return jsonrpc.CodeInvalidRequest, `Invalid Request: "jsonrpc" must be "2.0"`
	}
	if id, ok := obj["id"]; ok {
		var v any
		if json.Unmarshal(id, &v) != nil {
			return jsonrpc.CodeInvalidRequest, "Invalid Request: bad id"
		}
		switch n := v.(type) {
		case nil, string:
		case float64:
			if n != float64(int64(n)) || n > 1<<53 || n < -(1<<53) {
				return jsonrpc.CodeInvalidRequest, "Invalid Request: a numeric id must be an integer"
			}
		default:
			return jsonrpc.CodeInvalidRequest, "Invalid Request: id must be a string, a number or null"
		}
	}
	if _, err := jsonrpc.DecodeMessage(line); err != nil {
		return jsonrpc.CodeInvalidRequest, "Invalid Request: " + err.Error()
	}
	return 0, ""
}

func writeError(w io.Writer, code int64, msg string) {
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": code, "message": msg},
	})
	w.Write(append(b, '\n'))
}

// lockedWriter serialises whole messages from the SDK and from frames on one stream, and
// marks each request answered once its answer is written.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	open pending
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	for line := range bytes.SplitSeq(p[:n], []byte("\n")) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &m) == nil && m.Method == "" {
			if id := idKey(m.ID); id != "" {
				l.open.done(id) // an answer (result or error) to a request
			}
		}
	}
	return n, err
}

func (l *lockedWriter) Close() error { return nil }
