package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
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
// It closes fwd when in ends (with in's error, if any).
func frames(in io.Reader, fwd *io.PipeWriter, reply io.Writer) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if tooLong {
			writeError(reply, jsonrpc.CodeInvalidRequest, "Invalid Request: the message is longer than 4 MiB")
		} else if len(bytes.TrimSpace(line)) > 0 {
			if code, msg := check(line); code != 0 {
				writeError(reply, code, msg)
			} else if _, werr := fwd.Write(append(line, '\n')); werr != nil {
				return // the session ended
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			fwd.CloseWithError(err)
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

// lockedWriter serialises whole messages from the SDK and from frames on one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }
