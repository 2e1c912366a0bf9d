package history

import (
	"bufio"
	"sort"
	"strings"
	"testing"

	"github.com/kontext/kontext/internal/gittest"
)

// repo is a scratch repository driven by the git binary.
type repo struct{ *gittest.Repo }

func newRepo(tb testing.TB) *repo { return &repo{gittest.New(tb)} }

func buildFixture(r *repo) { gittest.Fixture(r.Repo) }

// oracle returns git's own answer: every non-merge commit's changed paths
// against its first parent.
func (r *repo) oracle() map[string][]string {
	r.TB.Helper()
	out := r.Git("-c", "core.quotePath=false", "log", "--no-merges", "--no-renames", "--name-only", "--format=%H")
	res := map[string][]string{}
	cur := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
		case len(line) == 40 && isHex(line):
			cur = line
			res[cur] = []string{}
		default:
			res[cur] = append(res[cur], line)
		}
	}
	for _, ps := range res {
		sort.Strings(ps)
	}
	return res
}

func isHex(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
