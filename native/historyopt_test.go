package native_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
	"github.com/kontext/kontext/native"
)

// TestGoverningWithoutHistory: history:false answers the same entries with
// the history-derived fields null, and the default still fills them.
func TestGoverningWithoutHistory(t *testing.T) {
	dir := testrepo.Demo(t)
	ctx := context.Background()
	decode := func(input string) []map[string]any {
		var env struct {
			OK     bool `json:"ok"`
			Result struct {
				Entries []map[string]any `json:"entries"`
			} `json:"result"`
		}
		out := native.Request(ctx, dir, "entries.governing", []byte(input))
		if err := json.Unmarshal(out, &env); err != nil || !env.OK {
			t.Fatalf("%s: %s", input, out)
		}
		return env.Result.Entries
	}
	with := decode(`{"paths":["src/export/nightly.go","src/billing/tax/vat.go"]}`)
	without := decode(`{"paths":["src/export/nightly.go","src/billing/tax/vat.go"],"history":false}`)
	if len(with) == 0 || len(with) != len(without) {
		t.Fatalf("%d entries with history, %d without", len(with), len(without))
	}
	historyFields := []string{"since", "since_verified", "amended_since"}
	filled := 0
	for i := range with {
		for _, f := range historyFields {
			if with[i][f] != nil {
				filled++
			}
			if without[i][f] != nil {
				t.Errorf("%v: %s = %v without history", without[i]["id"], f, without[i][f])
			}
			delete(with[i], f)
			delete(without[i], f)
		}
		for _, v := range []map[string]any{with[i], without[i]} {
			if ver, ok := v["verification"].(map[string]any); ok {
				delete(ver, "landed")
			}
			if ver, ok := v["last_verified"].(map[string]any); ok {
				delete(ver, "landed")
				delete(ver, "commit")
			}
		}
		a, _ := json.Marshal(with[i])
		b, _ := json.Marshal(without[i])
		if string(a) != string(b) {
			t.Errorf("entry %d differs beyond the history fields:\n%s\n%s", i, a, b)
		}
	}
	if filled == 0 {
		t.Fatal("the default answer fills no history field on the demo: the test proves nothing")
	}
}
