package lint

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/internal/entry"
)

// minDuplicateWords: a duplicated run of paragraphs shorter than this many
// words ("See below.", "## Testing" prose stubs) is no finding.
const minDuplicateWords = 6

// run is a stretch of consecutive paragraphs that several files share
// word for word: start[k] is its first paragraph in the k-th file.
type run struct {
	start, end []para // first and last paragraph per file, by file
	bytes      []int  // bytes per file
	words      int
}

// lineUnits are the lines of paras as units of their own, numbered by
// file line (consecutive lines make a run), each knowing its paragraph:
// a list of one-line rules in one file (.cursorrules) and the same rules
// as list items in another are the same lines in different paragraphs.
func lineUnits(paras []para) []para {
	var out []para
	for _, p := range paras {
		for i, l := range p.p.Lines {
			w := words(l)
			if len(w) == 0 {
				continue
			}
			out = append(out, para{doc: p.doc, index: p.p.Line[i], p: entry.Paragraph{Lines: []string{l}, Line: []int{p.p.Line[i]}},
				norm: strings.Join(w, " "), words: w, bytes: len(l) + 1, parent: p.norm})
		}
	}
	return out
}

// sameParagraphs reports whether every line of g sits in the same
// paragraph text: the paragraph pass has found them.
func sameParagraphs(g []para) bool {
	for _, p := range g[1:] {
		if p.parent != g[0].parent {
			return false
		}
	}
	return true
}

// duplicates adds a finding per run of units (paragraphs, or lines) found
// word for word in several files: per client that has two or more copies
// in one context (with the bytes it reads more than once), else one
// finding without a client. skip drops a group of copies another pass
// reports.
func duplicates(docs []Doc, clients []string, paras []para, unit string, skip func(g []para) bool, out *[]api.LintFinding) {
	// Each normalised text, with its first paragraph in each file.
	byText := map[string][]para{}
	var order []string
	for _, p := range paras {
		if p.norm == "" {
			continue
		}
		g, ok := byText[p.norm]
		if !ok {
			order = append(order, p.norm)
		}
		if len(g) > 0 && g[len(g)-1].doc == p.doc {
			continue // the same file repeating itself is not this finding
		}
		byText[p.norm] = append(g, p)
	}
	// Runs: a shared paragraph that follows the previous shared paragraph
	// in every file of the same set extends its run.
	var runs []*run
	last := map[string]*run{} // file set → its open run
	for _, norm := range order {
		g := byText[norm]
		if len(g) < 2 || (skip != nil && skip(g)) {
			continue
		}
		key := fileSet(g)
		if r := last[key]; r != nil && follows(r, g) {
			for k, p := range g {
				r.end[k] = p
				r.bytes[k] += p.bytes
			}
			r.words += len(g[0].words)
			continue
		}
		r := &run{start: slices.Clone(g), end: slices.Clone(g), bytes: make([]int, len(g)), words: len(g[0].words)}
		for k, p := range g {
			r.bytes[k] = p.bytes
		}
		runs = append(runs, r)
		last[key] = r
	}
	for _, r := range runs {
		if r.words < minDuplicateWords {
			continue
		}
		emitted := false
		ks := make([]int, len(r.start)) // every copy
		for k := range ks {
			ks[k] = k
		}
		for _, c := range clients {
			with := func(k, k2 int) bool { return together(docs, c, r.start[k].doc, r.start[k2].doc) }
			var read []int // the copies c has in a context with another
			for _, k := range ks {
				if slices.ContainsFunc(ks, func(k2 int) bool { return with(k, k2) }) {
					read = append(read, k)
				}
			}
			if len(read) < 2 {
				continue
			}
			// What one context holds more than once: the copies around each
			// one that are all read together (svc/ and web/ never are).
			wasted := 0
			for _, k := range read {
				clique := []int{k}
				for _, j := range read {
					if !slices.Contains(clique, j) && !slices.ContainsFunc(clique, func(m int) bool { return !with(j, m) }) {
						clique = append(clique, j)
					}
				}
				total, most := 0, 0
				for _, m := range clique {
					total += r.bytes[m]
					most = max(most, r.bytes[m])
				}
				wasted = max(wasted, total-most)
			}
			f := r.finding(docs, read, unit)
			f.Client, f.BytesWasted = &c, intp(wasted)
			f.Message += fmt.Sprintf("; %s reads %d bytes of it more than once", c, wasted)
			*out = append(*out, f)
			emitted = true
		}
		if !emitted {
			f := r.finding(docs, ks, unit)
			f.Message += "; no client loads two copies at once, but each edit must be made in every file"
			*out = append(*out, f)
		}
	}
}

// finding is the duplicate finding of r over its files ks.
func (r *run) finding(docs []Doc, ks []int, unit string) api.LintFinding {
	f := api.LintFinding{RuleID: RuleDuplicate, Severity: "note"}
	var names []string
	for _, k := range ks {
		p := r.start[k]
		f.Locations = append(f.Locations, locate(docs, p))
		f.Quotes = append(f.Quotes, p.p.Lines[0])
		names = append(names, fmt.Sprintf("%s:%d", docs[p.doc].real(), p.p.Line[0]))
	}
	lines := r.end[ks[0]].p.Line[len(r.end[ks[0]].p.Line)-1] - r.start[ks[0]].p.Line[0] + 1
	what := "the same " + unit
	verb := "is"
	if r.start[ks[0]].index != r.end[ks[0]].index {
		what, verb = fmt.Sprintf("the same %d %ss", r.end[ks[0]].index-r.start[ks[0]].index+1, unit), "are"
	}
	size := fmt.Sprintf("%s, %d bytes", plural(lines, "line"), r.bytes[ks[0]])
	if unit == "line" {
		size = fmt.Sprintf("%d bytes", r.bytes[ks[0]])
	}
	f.Message = fmt.Sprintf("%s (%s) %s in %s: %s", what, size, verb, plural(len(ks), "file"), strings.Join(names, ", "))
	return f
}

// fileSet names the files of a group of paragraphs.
func fileSet(g []para) string {
	var b strings.Builder
	for _, p := range g {
		fmt.Fprintf(&b, "%d,", p.doc)
	}
	return b.String()
}

// follows reports whether every paragraph of g comes right after r's end
// in its file.
func follows(r *run, g []para) bool {
	for k, p := range g {
		if p.index != r.end[k].index+1 {
			return false
		}
	}
	return true
}

func intp(n int) *int { return &n }

// plural is "1 line", "2 lines".
func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// Near-duplicates: the measure is the Jaccard index of two paragraphs'
// sets of word bigrams (after words), found between paragraphs of at
// least minNearWords words in different files.
const (
	// NearThreshold is the least bigram Jaccard index of a near-duplicate.
	NearThreshold = 0.5
	minNearWords  = 8
	// commonBigram: a bigram in more paragraphs than this ("of the") does
	// not propose candidates (it still counts in the measure).
	commonBigram = 64
)

// Similarity describes the near-duplicate measure (rules.lint's similarity).
var Similarity = fmt.Sprintf("Jaccard index of word bigrams (lower-cased words, Markdown, punctuation and articles set aside, a plural s cut) of paragraphs of at least %d words in different files whose scopes overlap; near-duplicate at >= %.2f and below 1", minNearWords, NearThreshold)

// stems are ws without articles and with a plural "s" cut ("the errors"
// and "errors" and "error" compare equal).
func stems(ws []string) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		if articles[w] {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out = append(out, w)
	}
	return out
}

// quotesConflict reports whether a line of a and a line of b are the two
// quotes of a contradiction.
func quotesConflict(a, b para, conflicting map[[2]lineAt]bool) bool {
	for _, x := range a.p.Line {
		for _, y := range b.p.Line {
			if conflicting[[2]lineAt{{a.doc, x}, {b.doc, y}}] || conflicting[[2]lineAt{{b.doc, y}, {a.doc, x}}] {
				return true
			}
		}
	}
	return false
}

func bigrams(ws []string) map[string]bool {
	out := make(map[string]bool, len(ws))
	for i := 0; i+1 < len(ws); i++ {
		out[ws[i]+" "+ws[i+1]] = true
	}
	return out
}

// nearDuplicates adds a finding per pair of distinct paragraph texts in
// different files whose scopes overlap and whose bigram Jaccard index
// reaches NearThreshold. (Sibling files that say the same thing about
// their own directories — "tests go in tests/" per package — are a
// template, not a near-duplicate.)
func nearDuplicates(docs []Doc, paras []para, overlap func(a, b int) bool, conflicting map[[2]lineAt]bool, out *[]api.LintFinding) {
	var ids []int
	sets := map[int]map[string]bool{}
	post := map[string][]int{}
	for i, p := range paras {
		if len(p.words) < minNearWords {
			continue
		}
		ids = append(ids, i)
		sets[i] = bigrams(stems(p.words))
		for b := range sets[i] {
			post[b] = append(post[b], i)
		}
	}
	seen := map[[2]string]bool{}
	for _, i := range ids {
		shared := map[int]int{}
		for b := range sets[i] {
			if len(post[b]) > commonBigram {
				continue
			}
			for _, j := range post[b] {
				if j > i {
					shared[j]++
				}
			}
		}
		var js []int
		for j := range shared {
			js = append(js, j)
		}
		slices.Sort(js)
		for _, j := range js {
			a, b := paras[i], paras[j]
			if a.doc == b.doc || a.norm == b.norm || !overlap(a.doc, b.doc) || quotesConflict(a, b, conflicting) {
				continue
			}
			n := 0
			for g := range sets[i] {
				if sets[j][g] {
					n++
				}
			}
			sim := float64(n) / float64(len(sets[i])+len(sets[j])-n)
			key := [2]string{a.norm, b.norm}
			if sim < NearThreshold || seen[key] {
				continue
			}
			seen[key] = true
			sim = math.Round(sim*100) / 100
			*out = append(*out, api.LintFinding{RuleID: RuleNearDuplicate, Severity: "note",
				Locations:  []api.LintLocation{locate(docs, a), locate(docs, b)},
				Quotes:     []string{a.p.Lines[0], b.p.Lines[0]},
				Similarity: &sim,
				Message: fmt.Sprintf("nearly the same paragraph (bigram similarity %.2f) in %s:%d and %s:%d: keep one wording in one file",
					sim, docs[a.doc].real(), a.p.Line[0], docs[b.doc].real(), b.p.Line[0])})
		}
	}
}
