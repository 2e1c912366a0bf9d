// Package search owns the model-free text ranking of kontext: the tokeniser
// (Unicode letters/digits, lower-cased, diacritics folded, English stop words
// removed, trailing-"s" fold), the BM25F index behind entries.search, and the
// "similar wording" rule of entries.related. It is pure: callers hand it the
// documents, it reads nothing itself.
package search

import (
	_ "embed"
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kontext/kontext/engine/internal/fold"
)

// BM25F parameters of entries.search (README "The application API").
const (
	K1 = 1.2
	B  = 0.75
)

// Field weights; the order of the fields is the order tf~ is summed in, kept
// fixed so scores are bit-for-bit reproducible.
const (
	fieldTitle = iota
	fieldSummary
	fieldTags
	fieldBody
	numFields
)

var fieldWeight = [numFields]float64{3, 2, 2, 1}

//go:embed stopwords.txt
var stopwordsTxt string

// Parsed at first use, not at package initialisation.
var stopwords = sync.OnceValue(buildStopwords)

func buildStopwords() map[string]struct{} {
	return parseStopwords(stopwordsTxt)
}

func parseStopwords(s string) map[string]struct{} {
	m := make(map[string]struct{}, 160)
	for line := range strings.SplitSeq(s, "\n") {
		w := strings.TrimSpace(line)
		if w == "" || strings.HasPrefix(w, "#") {
			continue
		}
		m[w] = struct{}{}
	}
	return m
}

// IsStopWord reports whether tok is on the fixed English stop-word list. tok
// is compared as is, so it must already be lower-case and folded.
func IsStopWord(tok string) bool {
	_, ok := stopwords()[tok]
	return ok
}

// Tokenize splits s into search terms: runs of Unicode letters and digits,
// lower-cased and diacritic-folded (fold.Fold), stop words removed, and a
// trailing "s" dropped from words longer than 3 letters that do not end in
// "ss" ("decisions" -> "decision"; "class" and "bus" stay). A word is dropped
// when it or its s-folded form is a stop word ("others" -> "other").
func Tokenize(s string) []string {
	var out []string
	f := fold.Fold(s)
	start := -1
	for i, r := range f {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = appendToken(out, f[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = appendToken(out, f[start:])
	}
	return out
}

func appendToken(out []string, w string) []string {
	if IsStopWord(w) {
		return out
	}
	if len(w) > 3 && w[len(w)-1] == 's' && w[len(w)-2] != 's' && utf8.RuneCountInString(w) > 3 {
		w = w[:len(w)-1]
		if IsStopWord(w) {
			return out
		}
	}
	return append(out, w)
}

// Doc is one document handed to Build.
type Doc struct {
	ID, Title, Summary, Body string
	Tags                     []string
}

// Hit is one search result.
type Hit struct {
	Doc   int      // index into the docs given to Build
	ID    string   // the Doc's ID
	Score float64  // BM25F score rounded to 6 decimals
	Terms []string // distinct matched query terms (as tokenised), in query order
}

// posting holds one document's precomputed contribution to a term's score,
// IDF(t) · tf~ / (k1 + tf~): none of it depends on the query, so a search only
// adds numbers up.
type posting struct {
	doc int32
	w   float64
}

// Index is a BM25F index over a fixed set of documents. It is immutable
// after Build and safe for concurrent use.
type Index struct {
	ids      []string
	rank     []int32              // doc -> position in (ID, doc) order: ties compare ints, not strings
	postings map[string][]posting // sorted by doc
}

// Build indexes docs. Hits refer to docs by their position in this slice.
func Build(docs []Doc) *Index {
	type termFreq struct {
		term string
		tf   [numFields]int
	}
	perDoc := make([][]termFreq, len(docs))
	lens := make([][numFields]int, len(docs))
	var totals [numFields]int
	df := make(map[string]int)

	for d, doc := range docs {
		pos := make(map[string]int)
		add := func(field int, toks []string) {
			for _, t := range toks {
				i, ok := pos[t]
				if !ok {
					i = len(perDoc[d])
					pos[t] = i
					perDoc[d] = append(perDoc[d], termFreq{term: t})
					df[t]++
				}
				perDoc[d][i].tf[field]++
			}
			lens[d][field] += len(toks)
			totals[field] += len(toks)
		}
		add(fieldTitle, Tokenize(doc.Title))
		add(fieldSummary, Tokenize(doc.Summary))
		for _, tag := range doc.Tags {
			add(fieldTags, Tokenize(tag))
		}
		add(fieldBody, Tokenize(doc.Body))
	}

	n := float64(len(docs))
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = 1 // the spec: when avglen_f is 0 use 1
		if len(docs) > 0 && totals[f] > 0 {
			avg[f] = float64(totals[f]) / n
		}
	}

	idf := make(map[string]float64, len(df))
	postings := make(map[string][]posting, len(df))
	for t, c := range df {
		idf[t] = math.Log(1 + (n-float64(c)+0.5)/(float64(c)+0.5))
		postings[t] = make([]posting, 0, c)
	}

	ids := make([]string, len(docs))
	for d, doc := range docs {
		ids[d] = doc.ID
		var norm [numFields]float64
		for f := range numFields {
			norm[f] = 1 - B + B*float64(lens[d][f])/avg[f]
		}
		for _, tf := range perDoc[d] {
			var x float64
			for f := range numFields {
				if tf.tf[f] > 0 {
					x += fieldWeight[f] * float64(tf.tf[f]) / norm[f]
				}
			}
			postings[tf.term] = append(postings[tf.term], posting{doc: int32(d), w: idf[tf.term] * x / (K1 + x)})
		}
	}
	order := make([]int32, len(docs))
	for d := range order {
		order[d] = int32(d)
	}
	// Positions break ties: the stable order.
	sort.Slice(order, func(i, j int) bool {
		if c := strings.Compare(ids[order[i]], ids[order[j]]); c != 0 {
			return c < 0
		}
		return order[i] < order[j]
	})
	rank := make([]int32, len(docs))
	for r, d := range order {
		rank[d] = int32(r)
	}
	return &Index{ids: ids, rank: rank, postings: postings}
}

// Len returns the number of documents in the index.
func (ix *Index) Len() int { return len(ix.ids) }

// distinct returns the distinct tokens of q in first-occurrence order.
func distinct(q string) []string {
	toks := Tokenize(q)
	out := toks[:0]
	seen := make(map[string]struct{}, len(toks))
	for _, t := range toks {
		if _, ok := seen[t]; !ok {
			seen[t] = struct{}{}
			out = append(out, t)
		}
	}
	return out
}

// Search ranks the documents against query: all hits with a (rounded) score
// above 0, sorted by score descending, then ID ascending. Its cost is linear
// in the postings of the query's terms, not in the size of the index.
func (ix *Index) Search(query string) []Hit {
	return ix.search(distinct(query))
}

func (ix *Index) search(terms []string) []Hit {
	// A k-way merge of the terms' posting lists (each sorted by doc), ordered
	// by (doc, query position): every document comes out once with its terms
	// in query order, and the cost is O(P log k) for P postings and k terms —
	// no per-corpus arrays, no map.
	h := make(cursorHeap, 0, len(terms))
	total := 0
	for i, t := range terms {
		if ps := ix.postings[t]; len(ps) > 0 {
			h = append(h, cursor{list: ps, term: int32(i)})
			total += len(ps)
		}
	}
	if len(h) == 0 {
		return nil
	}
	h.init()
	// acc is one document's running total; its terms are flat[from:to].
	type acc struct {
		doc      int32
		score    float64
		from, to int32
	}
	var (
		accs []acc
		flat = make([]string, 0, total) // all hits' Terms share one array
	)
	for len(h) > 0 {
		c := &h[0]
		doc := c.list[c.pos].doc
		if n := len(accs); n == 0 || accs[n-1].doc != doc {
			accs = append(accs, acc{doc: doc, from: int32(len(flat))})
		}
		a := &accs[len(accs)-1]
		a.score += c.list[c.pos].w
		flat = append(flat, terms[c.term])
		a.to = int32(len(flat))
		c.pos++
		if c.pos == len(c.list) {
			h.pop()
		} else {
			h.fix()
		}
	}
	// Round before filtering and sorting so that what callers see (6
	// decimals) is exactly what decided the order. Sorting small keys and
	// comparing precomputed id ranks keeps the sort cheap on large result sets.
	type key struct {
		score float64
		rank  int32
		hit   int32
	}
	keys := make([]key, 0, len(accs))
	for i, a := range accs {
		if sc := math.Round(a.score*1e6) / 1e6; sc > 0 {
			keys = append(keys, key{sc, ix.rank[a.doc], int32(i)})
		}
	}
	if len(keys) == 0 {
		return nil
	}
	// sort.Slice, not slices.SortFunc: a generic sort of its own shape
	// would add its own code to the WASM engine; ranks are distinct, so the
	// order is total either way.
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.score != b.score {
			return a.score > b.score
		}
		return a.rank < b.rank
	})
	out := make([]Hit, len(keys))
	for i, k := range keys {
		a := accs[k.hit]
		// Capped capacity: a caller appending to Terms cannot clobber the
		// next hit's terms.
		out[i] = Hit{Doc: int(a.doc), ID: ix.ids[a.doc], Score: k.score, Terms: flat[a.from:a.to:a.to]}
	}
	return out
}

// cursor walks one query term's posting list.
type cursor struct {
	list []posting
	pos  int
	term int32 // position of the term in the query
}

func (c *cursor) less(d *cursor) bool {
	a, b := c.list[c.pos].doc, d.list[d.pos].doc
	return a < b || (a == b && c.term < d.term)
}

// cursorHeap is a binary min-heap of cursors; hand-rolled to avoid
// container/heap's interface calls in the inner loop.
type cursorHeap []cursor

func (h cursorHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

// fix restores the heap after the top cursor advanced.
func (h cursorHeap) fix() { h.down(0) }

// pop drops the top cursor.
func (h *cursorHeap) pop() {
	old := *h
	n := len(old) - 1
	old[0] = old[n]
	*h = old[:n]
	h.down(0)
}

func (h cursorHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r].less(&h[l]) {
			m = r
		}
		if !h[m].less(&h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// Similar returns the hits "close to the best" for text (entries.related
// without a model): score >= 50% of the best hit's score, and matching at
// least two distinct non-stop query terms — or one when the query has only
// one distinct non-stop term. Sorted as Search. The best hit is taken over
// the whole index, so callers index only the documents that may be returned.
func (ix *Index) Similar(text string) []Hit {
	terms := distinct(text)
	hits := ix.search(terms)
	if len(hits) == 0 {
		return nil
	}
	need := min(2, len(terms))
	floor := hits[0].Score / 2
	var out []Hit
	for _, h := range hits {
		if h.Score >= floor && len(h.Terms) >= need {
			out = append(out, h)
		}
	}
	return out
}
