package engine

import (
	"reflect"
	"testing"

	"github.com/kontext/kontext/engine/internal/match"
)

// TestGoverningHits: matches below the minimum go, entries left with none
// go, skipped owners go, and the rest come most specific first, then by
// kind rank and id.
func TestGoverningHits(t *testing.T) {
	rs := []match.Result{
		{Owner: 0, Matches: []match.Match{{Path: "a", Rule: "a", Specificity: 4}, {Path: "b", Rule: "*", Specificity: 1}}},
		{Owner: 1, Matches: []match.Match{{Path: "b", Rule: "*", Specificity: 1}}},
		{Owner: 2, Matches: []match.Match{{Path: "a", Rule: "a", Specificity: 4}}},
	}
	key := func(o int) (int, string) { return 0, string(rune('x' + o)) }
	hits := governingHits(rs, 2, func(o int) bool { return o == 2 }, key)
	want := []governingHit{{Owner: 0, Matches: []match.Match{{Path: "a", Rule: "a", Specificity: 4}}, Best: 4}}
	if !reflect.DeepEqual(hits, want) {
		t.Fatalf("%+v, want %+v", hits, want)
	}
	rank := map[int]int{0: 1, 1: 0, 2: 0} // owner 0 a convention, 1 and 2 decisions
	ids := map[int]string{0: "a", 1: "c", 2: "b"}
	hits = governingHits(rs, 0, nil, func(o int) (int, string) { return rank[o], ids[o] })
	var order []int
	for _, h := range hits {
		order = append(order, h.Owner)
	}
	// 2 (4, decision) before 0 (4, convention); 1 (best 1) last.
	if want := []int{2, 0, 1}; !reflect.DeepEqual(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
}
