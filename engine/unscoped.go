package engine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kontext/kontext/engine/internal/entry"
)

// Unscoped counts the active entries without paths by kind: they govern
// no path until they get some (an ADR log adopted as it is).
func (st *State) Unscoped() map[string]int {
	count := map[string]int{}
	for _, en := range st.Snap.Entries() {
		if len(en.Paths) == 0 && !entry.Inactive(en.Status) {
			count[en.Kind]++
		}
	}
	return count
}

// UnscopedNote says why an answer in which no entry governs a path may
// be empty — "45 decisions have no paths, so they govern no path yet" —
// and names the command that suggests paths for them; "" when every
// active entry has paths. The CLI prints it under an empty governing
// answer; the brief carries it in its REPOSITORY section.
func UnscopedNote(count map[string]int) string {
	kinds := make([]string, 0, len(count))
	n := 0
	for k, c := range count {
		if c > 0 {
			kinds = append(kinds, k)
			n += c
		}
	}
	if n == 0 {
		return ""
	}
	sort.Slice(kinds, func(i, j int) bool {
		return count[kinds[i]] > count[kinds[j]] || count[kinds[i]] == count[kinds[j]] && kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		c := count[k]
		noun := k + "s"
		switch {
		case k == "architecture":
			noun = "architecture notes"
			if c == 1 {
				noun = "architecture note"
			}
		case c == 1:
			noun = k
		}
		parts[i] = fmt.Sprintf("%d %s", c, noun)
	}
	list := parts[0]
	if len(parts) > 1 {
		list = strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	verb, they := "have", "they govern"
	if n == 1 {
		verb, they = "has", "it governs"
	}
	return fmt.Sprintf("%s %s no paths, so %s no path yet; suggest paths from their history: kontext paths suggest --all (--apply stages them)", list, verb, they)
}
