package mcpserver

import (
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// TestSetStatusThroughCtxAPI: an agent accepts a proposed decision with
// ctx_api drafts.set_status, the same dispatcher as kontext accept.
func TestSetStatusThroughCtxAPI(t *testing.T) {
	t.Setenv("KONTEXT_NOW", testNow)
	demo := testrepo.Demo(t)
	cs := inMemory(t, demo)
	id := "2026-11-16-move-sessions-to-redis"
	_, env := call(t, cs, "ctx_api", map[string]any{"operation": "entries.get", "input": map[string]any{"id": id}})
	rev, _ := env["result"].(map[string]any)["revision"].(string)
	if env["ok"] != true || rev == "" {
		t.Fatalf("entries.get: %v", env)
	}
	in := map[string]any{"operation_id": "mcp-accept-1", "entry_id": id, "entry_revision": rev, "status": "accepted"}
	_, env = call(t, cs, "ctx_api", map[string]any{"operation": "drafts.set_status", "input": in})
	r, _ := env["result"].(map[string]any)
	if env["ok"] != true || r["staged"] != true || r["entry"].(map[string]any)["status"] != "accepted" {
		t.Fatalf("ctx_api drafts.set_status: %v", env)
	}
	_, env = call(t, cs, "ctx_api", map[string]any{"operation": "drafts.set_status", "input": in})
	if env["result"].(map[string]any)["replayed"] != true {
		t.Fatalf("retry: %v", env)
	}
	in["operation_id"] = "mcp-reject-1"
	_, env = call(t, cs, "ctx_api", map[string]any{"operation": "drafts.set_status", "input": in})
	if errCode(env) != "operation_conflict" {
		t.Fatalf("rejecting an accepted decision: %v", env)
	}
}
