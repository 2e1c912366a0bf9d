package engine

import (
	"context"
	"testing"
)

// TestMemoUncommitted: inside WithUncommittedMemo the list is taken once
// and callers get their own copies; outside it, every call lists again.
func TestMemoUncommitted(t *testing.T) {
	calls := 0
	list := func() ([]string, error) { calls++; return []string{"a", "b"}, nil }
	ctx := WithUncommittedMemo(context.Background())
	first, _ := MemoUncommitted(ctx, list)
	first[0] = "changed by a caller"
	second, _ := MemoUncommitted(ctx, list)
	if calls != 1 || second[0] != "a" {
		t.Errorf("memo: %d calls, second answer %v", calls, second)
	}
	MemoUncommitted(context.Background(), list)
	MemoUncommitted(context.Background(), list)
	if calls != 3 {
		t.Errorf("without a memo: %d calls, want 3", calls)
	}
}
