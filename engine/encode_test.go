package engine_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine"
)

// TestEncodeFailure: a result JSON cannot hold becomes an
// operation_failed envelope that is itself valid JSON (its message was
// once Go-quoted), worded as encoding/json words the failure.
func TestEncodeFailure(t *testing.T) {
	for _, v := range []any{math.NaN(), map[string]any{"x": []any{math.Inf(1)}}, "quote \" and \x00 control"} {
		raw := engine.ResultEnvelope(v)
		var env struct {
			OK     bool
			Result json.RawMessage
			Error  struct{ Code, Message string } // encoding/json matches the lower-case members
		}
		if err := json.Unmarshal(raw, &env); err != nil {
			t.Fatalf("%v: envelope is not JSON: %v\n%s", v, err, raw)
		}
		if s, ok := v.(string); ok {
			var got string
			if !env.OK || json.Unmarshal(env.Result, &got) != nil || got != s {
				t.Errorf("string result: %s", raw)
			}
			continue
		}
		if env.OK || env.Error.Code != "operation_failed" || !strings.Contains(env.Error.Message, "encoding the result failed: json: unsupported value: ") {
			t.Errorf("%v: %s", v, raw)
		}
	}
}
