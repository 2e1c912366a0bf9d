package search

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

func ids(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestTokenize(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"The decisions of the team", []string{"decision", "team"}},
		// Stop words go, whatever their case.
		{"THIS is NOT what we WANT", []string{"want"}},
		// s-fold: longer than 3 letters and not ending in "ss".
		{"class bus buses gas jobs access ops", []string{"class", "bus", "buse", "gas", "job", "access", "ops"}},
		// A word whose s-folded form is a stop word is dropped too.
		{"others", nil},
		// Runs of letters and digits; everything else separates.
		{"HTTP/2 retry-after, utf8 v1.2", []string{"http", "2", "retry", "utf8", "v1", "2"}},
		// Diacritics folded.
		{"Rozhodnutíe Čas Größe", []string{"rozhodnutie", "cas", "grosse"}},
		// Letters outside the table are kept and lower-cased.
		{"Решения ΛΌΓΟΣ", []string{"решения", "λόγοσ"}},
	}
	for _, c := range cases {
		got := Tokenize(c.in)
		if !slices.Equal(got, c.want) {
			t.Errorf("Tokenize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestStopWords(t *testing.T) {
	n := 0
	for w := range stopwords() {
		n++
		if w != strings.ToLower(w) || strings.TrimSpace(w) != w {
			t.Errorf("stop word %q is not a lower-case token", w)
		}
	}
	if n < 120 || n > 200 {
		t.Errorf("%d stop words, want about 150", n)
	}
	// Words ending in "s" are matched before the s-fold ("does", "ours").
	for _, w := range []string{"the", "and", "of", "is", "not", "were", "yourselves", "does", "ours"} {
		if !IsStopWord(w) {
			t.Errorf("IsStopWord(%q) = false", w)
		}
	}
	for _, w := range []string{"decision", "postgres", "The", ""} {
		if IsStopWord(w) {
			t.Errorf("IsStopWord(%q) = true", w)
		}
	}
	if got := Tokenize("Does this work? Ours does."); !slices.Equal(got, []string{"work"}) {
		t.Errorf("Tokenize = %q", got)
	}
	ix := Build([]Doc{{ID: "a", Title: "the and of", Body: "what is this"}})
	if hits := ix.Search("the this"); hits != nil {
		t.Errorf("stop-word query found %v", hits)
	}
}

func TestFoldingFindsDiacritics(t *testing.T) {
	docs := []Doc{
		{ID: "sk", Title: "Rozhodnutíe o databáze"},
		{ID: "cs", Title: "Příliš žluťoučký kůň"},
		{ID: "de", Title: "Straße und Größe"},
		{ID: "fr", Title: "Œuvre à côté", Body: "façade naïve"},
		{ID: "pl", Title: "Zażółć gęślą jaźń", Tags: []string{"Łódź"}},
		{ID: "en", Title: "Unrelated"},
	}
	ix := Build(docs)
	cases := map[string]string{
		"rozhodnutie":   "sk",
		"ROZHODNUTÍE":   "sk",
		"databaze":      "sk",
		"zlutoucky kun": "cs",
		"strasse":       "de",
		"grosse":        "de",
		"oeuvre facade": "fr",
		"cote naive":    "fr",
		"zazolc":        "pl",
		"lodz":          "pl",
	}
	for q, want := range cases {
		hits := ix.Search(q)
		if len(hits) != 1 || hits[0].ID != want {
			t.Errorf("Search(%q) = %v, want only %s", q, ids(hits), want)
		}
	}
}

func TestSFoldMatches(t *testing.T) {
	ix := Build([]Doc{
		{ID: "a", Title: "Architecture decisions"},
		{ID: "b", Title: "Class loader"},
		{ID: "c", Title: "Bus"},
	})
	for q, want := range map[string]string{"decision": "a", "Decisions": "a", "class": "b", "bus": "c"} {
		hits := ix.Search(q)
		if len(hits) != 1 || hits[0].ID != want {
			t.Errorf("Search(%q) = %v, want %s", q, ids(hits), want)
		}
	}
	// "clas" must not match "class": class is not s-folded.
	if hits := ix.Search("clas"); hits != nil {
		t.Errorf("Search(clas) = %v", ids(hits))
	}
}

func TestTitleBeatsBody(t *testing.T) {
	ix := Build([]Doc{
		{ID: "a-body", Title: "Queue", Body: "retry"},
		{ID: "z-title", Title: "Retry", Body: "queue"},
		{ID: "other", Title: "Nothing", Body: "else"},
	})
	hits := ix.Search("retry")
	if got := ids(hits); !slices.Equal(got, []string{"z-title", "a-body"}) {
		t.Fatalf("order %v", got)
	}
	if hits[0].Score <= hits[1].Score {
		t.Fatalf("title %v <= body %v", hits[0].Score, hits[1].Score)
	}
}

// TestHandComputed checks BM25F against numbers worked out by hand.
//
// Tokens (stop words gone, s-folded):
//
//	a: title [cron job]  summary []                   tags [ops]      body [run cron nightly]
//	b: title [postgre]   summary [use postgre billing] tags []         body [cron used]
//	c: title [queue]     summary []                   tags [cron ops] body [background work]
//
// avglen: title 4/3, summary 1, tags 1, body 7/3. N = 3.
// IDF(cron) = ln(1 + 0.5/3.5) = ln(8/7); IDF(ops) = ln(1 + 1.5/2.5) = ln(1.6).
//
// a, cron: title 3·1/(0.25+0.75·2/(4/3)) = 3/1.375; body 1/(0.25+0.75·3/(7/3)) = 1/(17/14)
//
//	tf~ = 2.181818… + 0.823529… = 3.005348; ln(8/7)·3.005348/4.205348 = 0.095428
//
// a, ops: tags 2·1/(0.25+0.75·1/1) = 2; ln(1.6)·2/3.2 = 0.293752
//
//	a = 0.095428 + 0.293752 = 0.389180
//
// b, cron: body 1/(0.25+0.75·2/(7/3)) = 1/(25/28) = 1.12; ln(8/7)·1.12/2.32 = 0.064463
// c, cron: tags 2/(0.25+0.75·2) = 2/1.75 = 1.142857; ln(8/7)·1.142857/2.342857 = 0.065137
// c, ops: the same tags field, 0.229270; c = 0.294407
func TestHandComputed(t *testing.T) {
	ix := Build([]Doc{
		{ID: "a", Title: "Cron jobs", Tags: []string{"ops"}, Body: "Run cron nightly"},
		{ID: "b", Title: "Postgres", Summary: "Use postgres for billing", Body: "cron is not used"},
		{ID: "c", Title: "Queues", Tags: []string{"cron", "ops"}, Body: "background work"},
	})
	hits := ix.Search("cron ops cron")
	want := []Hit{
		{Doc: 0, ID: "a", Score: 0.389180, Terms: []string{"cron", "ops"}},
		{Doc: 2, ID: "c", Score: 0.294407, Terms: []string{"cron", "ops"}},
		{Doc: 1, ID: "b", Score: 0.064463, Terms: []string{"cron"}},
	}
	if len(hits) != len(want) {
		t.Fatalf("hits %+v", hits)
	}
	for i := range want {
		h, w := hits[i], want[i]
		if h.Doc != w.Doc || h.ID != w.ID || h.Score != w.Score || !slices.Equal(h.Terms, w.Terms) {
			t.Errorf("hit %d = %+v, want %+v", i, h, w)
		}
	}
	// The same query term written twice counts once.
	if s := ix.Search("ops cron")[0].Score; s != 0.389180 {
		t.Errorf("reordered query score %v", s)
	}
	// Terms come in query order.
	if got := ix.Search("ops cron")[0].Terms; !slices.Equal(got, []string{"ops", "cron"}) {
		t.Errorf("terms %v", got)
	}
}

func TestRoundedToSixDecimals(t *testing.T) {
	ix := Build([]Doc{{ID: "a", Title: "alpha beta"}, {ID: "b", Body: "alpha gamma delta"}, {ID: "c", Body: "x"}})
	for _, h := range ix.Search("alpha beta gamma") {
		if h.Score != math.Round(h.Score*1e6)/1e6 {
			t.Errorf("%s score %v not rounded", h.ID, h.Score)
		}
	}
}

func TestTiesByID(t *testing.T) {
	ix := Build([]Doc{
		{ID: "c", Title: "Retry policy"},
		{ID: "a", Title: "Retry policy"},
		{ID: "b", Title: "Retry policy"},
		{ID: "d", Title: "Other"},
	})
	hits := ix.Search("retry")
	if got := ids(hits); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("order %v", got)
	}
	if hits[0].Doc != 1 || hits[1].Doc != 2 || hits[2].Doc != 0 {
		t.Fatalf("doc indexes %+v", hits)
	}
}

func TestIDFTermInAllDocs(t *testing.T) {
	ix := Build([]Doc{{ID: "a", Title: "cache"}, {ID: "b", Body: "cache"}, {ID: "c", Tags: []string{"cache"}}})
	hits := ix.Search("cache")
	if len(hits) != 3 {
		t.Fatalf("hits %v", ids(hits))
	}
	for _, h := range hits {
		if h.Score <= 0 {
			t.Errorf("%s: score %v, want > 0 (IDF stays positive)", h.ID, h.Score)
		}
	}
	// A single document: IDF = ln(1 + 0.5/1.5) = ln(4/3); the title is the
	// only field, tf~ = 3, score = ln(4/3)·3/4.2.
	one := Build([]Doc{{ID: "x", Title: "cache"}}).Search("cache")
	want := math.Round(math.Log(4.0/3)*3/4.2*1e6) / 1e6
	if len(one) != 1 || one[0].Score != want {
		t.Fatalf("single doc %+v, want %v", one, want)
	}
}

func TestEmpty(t *testing.T) {
	if hits := Build(nil).Search("anything"); hits != nil {
		t.Errorf("empty index: %v", hits)
	}
	ix := Build([]Doc{{ID: "a", Title: "Something"}})
	for _, q := range []string{"", "   ", "the of", "missing"} {
		if hits := ix.Search(q); hits != nil {
			t.Errorf("Search(%q) = %v", q, hits)
		}
		if hits := ix.Similar(q); hits != nil {
			t.Errorf("Similar(%q) = %v", q, hits)
		}
	}
}

func similarCorpus() []Doc {
	docs := []Doc{
		// Best: all three terms in the title.
		{ID: "best", Title: "Retry with backoff and jitter for flaky network clients"},
		// Two terms in the title: well above half of the best.
		{ID: "two-high", Title: "Retry backoff"},
		// Only one term, but in title, summary and tags: high score, one term.
		{ID: "one-high", Title: "Jitter", Summary: "Jitter jitter", Tags: []string{"jitter"}, Body: "jitter jitter"},
		// Two terms, once each in a long body: below half of the best.
		{ID: "two-low", Body: "retry then backoff after a long long long explanation of many unrelated words here and there"},
		// One term, once in a long body: below half of the best.
		{ID: "one-low", Body: "jitter is mentioned once in this long body full of many other unrelated filler words"},
	}
	for i := range 6 {
		docs = append(docs, Doc{ID: fmt.Sprintf("pad-%d", i), Title: "Unrelated filler", Body: "nothing to see"})
	}
	return docs
}

func TestSimilar(t *testing.T) {
	ix := Build(similarCorpus())
	const q = "How should the retry use backoff and jitter?"
	all := ix.Search(q)
	score := map[string]Hit{}
	for _, h := range all {
		score[h.ID] = h
	}
	best := all[0]
	if best.ID != "best" {
		t.Fatalf("premise: best is %v", ids(all))
	}
	// Check the corpus really exercises both rules.
	if h := score["two-high"]; h.Score < best.Score/2 || len(h.Terms) != 2 {
		t.Fatalf("premise two-high: %+v best %v", h, best.Score)
	}
	if h := score["one-high"]; h.Score < best.Score/2 || len(h.Terms) != 1 {
		t.Fatalf("premise one-high: %+v best %v", h, best.Score)
	}
	if h := score["two-low"]; h.Score >= best.Score/2 || len(h.Terms) != 2 {
		t.Fatalf("premise two-low: %+v best %v", h, best.Score)
	}

	got := ids(ix.Similar(q))
	if want := []string{"best", "two-high"}; !slices.Equal(got, want) {
		t.Fatalf("Similar = %v, want %v (all: %+v)", got, want, all)
	}
}

func TestSimilarOneTermQuery(t *testing.T) {
	ix := Build(similarCorpus())
	// One distinct non-stop term ("jitter", written twice): one match is enough,
	// the 50% rule still applies.
	all := ix.Search("the jitter, jitter")
	got := ids(ix.Similar("the jitter, jitter"))
	var want []string
	for _, h := range all {
		if h.Score >= all[0].Score/2 {
			want = append(want, h.ID)
		}
	}
	if len(want) < 2 || !slices.Equal(got, want) {
		t.Fatalf("Similar = %v, want %v (all %+v)", got, want, all)
	}
	if len(all) == len(want) {
		t.Fatalf("premise: some hit should fall below half: %+v", all)
	}
}

func TestSimilarExactHalf(t *testing.T) {
	// Scores exactly at 50% are kept (>=). Two identical documents tie; a third
	// is checked against a floor computed from the rounded best score.
	ix := Build([]Doc{{ID: "a", Title: "alpha beta"}, {ID: "b", Title: "alpha beta"}, {ID: "c", Body: "gamma"}})
	if got := ids(ix.Similar("alpha beta")); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Similar = %v", got)
	}
}

func TestConcurrentSearch(t *testing.T) {
	ix := Build(similarCorpus())
	want := ix.Search("retry backoff jitter")
	done := make(chan []Hit)
	for range 8 {
		go func() { done <- ix.Search("retry backoff jitter") }()
	}
	for range 8 {
		got := <-done
		if !slices.Equal(ids(got), ids(want)) || got[0].Score != want[0].Score {
			t.Fatal("concurrent searches disagree")
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "The decisions", "Rozhodnutíe Čas", "a\u0301b", "\xff\xfeDž ǅ", "ΣΑΣ ßẞ İı"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokenize(s) {
			if tok == "" {
				t.Fatalf("empty token from %q", s)
			}
			if tok != strings.ToLower(tok) {
				t.Fatalf("token %q from %q is not lower-case", tok, s)
			}
			if IsStopWord(tok) {
				t.Fatalf("stop word %q from %q", tok, s)
			}
			for _, r := range tok {
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					t.Fatalf("token %q from %q has %U", tok, s, r)
				}
			}
		}
	})
}

// benchCorpus generates n documents over a Zipf-distributed vocabulary, so
// common words have long postings as in real text.
func benchCorpus(n int) []Doc {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.1, 2, 19999)
	word := func() string { return fmt.Sprintf("w%dx", z.Uint64()) }
	text := func(k int) string {
		var b strings.Builder
		for i := range k {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(word())
		}
		return b.String()
	}
	docs := make([]Doc, n)
	for i := range docs {
		docs[i] = Doc{
			ID:      fmt.Sprintf("2026-01-01-doc-%05d", i),
			Title:   text(6),
			Summary: text(20),
			Tags:    []string{word(), word()},
			Body:    text(150),
		}
	}
	return docs
}

func BenchmarkSearch(b *testing.B) {
	ix := Build(benchCorpus(10000))
	queries := []string{"w3x w50x w700x", "w1x w2x", "w12000x w19000x w5x w40x"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.Search(queries[i%len(queries)])
	}
}

func BenchmarkBuild(b *testing.B) {
	docs := benchCorpus(2000)
	b.ReportAllocs()
	for b.Loop() {
		Build(docs)
	}
}
