package lazy

import (
	"sync"
	"testing"
)

// Build runs once, on the first Get, however many goroutines ask.
func TestValue(t *testing.T) {
	calls := 0
	v := Value[[]int]{Build: func() []int { calls++; return []int{1, 2} }}
	if calls != 0 {
		t.Fatal("built before the first Get")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := v.Get(); len(got) != 2 || got[1] != 2 {
				t.Errorf("Get = %v", got)
			}
		}()
	}
	wg.Wait()
	if calls != 1 {
		t.Fatalf("Build ran %d times", calls)
	}
}
