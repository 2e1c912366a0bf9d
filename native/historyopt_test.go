package native_test

import (
	"context"
	"encoding/json"
	"strings"
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

// TestLineageOnlyAsked: an engine that answered about a few entries first
// (their lineage only) and then about all of them answers exactly like a
// fresh engine that decoded the lineage of every entry at once; so do
// get and drift, which need one entry and every candidate.
func TestLineageOnlyAsked(t *testing.T) {
	dir := testrepo.Demo(t)
	ctx := context.Background()
	e, err := native.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(do func(op, input string) []byte, op, input string) string {
		out := do(op, input)
		var env struct {
			OK     bool            `json:"ok"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(out, &env); err != nil || !env.OK {
			t.Fatalf("%s %s: %s", op, input, out)
		}
		return string(env.Result)
	}
	long := func(op, input string) []byte { return e.Request(ctx, op, []byte(input)) }
	fresh := func(op, input string) []byte { return native.Request(ctx, dir, op, []byte(input)) }

	gov := `{"paths":["src/billing/tax/vat.go"]}`
	if a, b := ask(long, "entries.governing", gov), ask(fresh, "entries.governing", gov); a != b {
		t.Errorf("governing differs:\n%s\n%s", a, b)
	}
	list := `{"active_only":false,"limit":500}`
	all := ask(fresh, "entries.list", list)
	if got := ask(long, "entries.list", list); got != all {
		t.Errorf("list after governing differs from a fresh list:\n%s\n%s", got, all)
	}
	if !strings.Contains(all, `"since":{`) {
		t.Fatal("no entry of the demo has since: the test proves nothing")
	}
	var ids struct {
		Entries []struct {
			ID string `json:"id"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(all), &ids); err != nil || len(ids.Entries) == 0 {
		t.Fatal(err)
	}
	for _, en := range ids.Entries {
		in := `{"id":"` + en.ID + `"}`
		if a, b := ask(fresh, "entries.get", in), ask(long, "entries.get", in); a != b {
			t.Errorf("get %s: fresh engine (one entry's lineage) and long-lived engine differ:\n%s\n%s", en.ID, a, b)
		}
	}
	drift := `{"base":"HEAD~3"}`
	if a, b := ask(fresh, "entries.drift", drift), ask(long, "entries.drift", drift); a != b {
		t.Errorf("drift differs:\n%s\n%s", a, b)
	}
}

// TestListWithoutHistory: entries.list {history:false} leaves the history
// fields null where the default fills them.
func TestListWithoutHistory(t *testing.T) {
	dir := testrepo.Demo(t)
	ctx := context.Background()
	with := string(native.Request(ctx, dir, "entries.list", []byte(`{"limit":500}`)))
	without := string(native.Request(ctx, dir, "entries.list", []byte(`{"limit":500,"history":false}`)))
	if !strings.Contains(with, `"ok":true`) || !strings.Contains(without, `"ok":true`) {
		t.Fatalf("%s\n%s", with, without)
	}
	if !strings.Contains(with, `"since":{`) {
		t.Fatal("the default list fills no since on the demo: the test proves nothing")
	}
	if strings.Contains(without, `"since":{`) || strings.Contains(without, `"amended_since":{`) {
		t.Errorf("history:false still filled history fields: %s", without)
	}
}
