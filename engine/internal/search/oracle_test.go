package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// naiveSearch scores every document straight from the spec's formulas, with
// no postings; it is the reference the index is checked against.
func naiveSearch(docs []Doc, query string) []Hit {
	fields := func(d Doc) [numFields][]string {
		var tags []string
		for _, t := range d.Tags {
			tags = append(tags, Tokenize(t)...)
		}
		return [numFields][]string{Tokenize(d.Title), Tokenize(d.Summary), tags, Tokenize(d.Body)}
	}
	all := make([][numFields][]string, len(docs))
	var avg [numFields]float64
	for i, d := range docs {
		all[i] = fields(d)
		for f := range numFields {
			avg[f] += float64(len(all[i][f]))
		}
	}
	for f := range numFields {
		avg[f] /= float64(len(docs))
		if avg[f] == 0 {
			avg[f] = 1
		}
	}
	count := func(toks []string, t string) int {
		n := 0
		for _, x := range toks {
			if x == t {
				n++
			}
		}
		return n
	}
	var hits []Hit
	for i := range docs {
		h := Hit{Doc: i, ID: docs[i].ID}
		for _, t := range distinct(query) {
			n := 0
			for j := range docs {
				if count(slices.Concat(all[j][:]...), t) > 0 {
					n++
				}
			}
			if n == 0 {
				continue
			}
			idf := math.Log(1 + (float64(len(docs))-float64(n)+0.5)/(float64(n)+0.5))
			var x float64
			for f := range numFields {
				if tf := count(all[i][f], t); tf > 0 {
					x += fieldWeight[f] * float64(tf) / (1 - B + B*float64(len(all[i][f]))/avg[f])
				}
			}
			if x > 0 {
				h.Score += idf * x / (K1 + x)
				h.Terms = append(h.Terms, t)
			}
		}
		h.Score = math.Round(h.Score*1e6) / 1e6
		if h.Score > 0 {
			hits = append(hits, h)
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.ID, b.ID)
	})
	return hits
}

func TestIndexMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	vocab := []string{"cron", "jobs", "Postgres", "billing", "the", "retry", "backoff", "Größe", "rozhodnutíe", "class", "bus", "queues", "a", "cache", "Čas"}
	text := func(k int) string {
		w := make([]string, r.IntN(k+1))
		for i := range w {
			w[i] = vocab[r.IntN(len(vocab))]
		}
		return strings.Join(w, " ")
	}
	for round := range 200 {
		docs := make([]Doc, 1+r.IntN(12))
		for i := range docs {
			docs[i] = Doc{ID: fmt.Sprintf("id-%d", r.IntN(8)), Title: text(3), Summary: text(6), Body: text(20)}
			for range r.IntN(3) {
				docs[i].Tags = append(docs[i].Tags, text(2))
			}
		}
		ix := Build(docs)
		for range 5 {
			q := text(5)
			got, want := ix.Search(q), naiveSearch(docs, q)
			if len(got) != len(want) {
				t.Fatalf("round %d %q: %d hits, naive %d", round, q, len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if g.Doc != w.Doc || g.ID != w.ID || g.Score != w.Score || !slices.Equal(g.Terms, w.Terms) {
					t.Fatalf("round %d %q hit %d: %+v, naive %+v", round, q, i, g, w)
				}
			}
		}
	}
}
