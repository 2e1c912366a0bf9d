package main

import (
	"context"
	"strings"
	"unicode"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

// nearDuplicates are the active entries whose title nearly equals title:
// the API's related entries for the title (entries.related, the same
// candidates drafts.stage returns as related_entries), kept when their
// title words overlap the new one's by at least 70% (Jaccard, after case,
// punctuation, a few filler words and plural/verb endings are set aside).
func nearDuplicates(ctx context.Context, g *factory, title string, exclude []string) ([]api.Candidate, error) {
	rel, err := read(ctx, g, (*engine.Engine).Related, &api.RelatedInput{Text: title, ExcludeIDs: exclude})
	if err != nil {
		return nil, err
	}
	var out []api.Candidate
	for _, c := range rel.Candidates {
		if titleSimilarity(title, c.Title) >= 0.7 {
			out = append(out, c)
		}
	}
	return out, nil
}

var fillerWords = map[string]bool{"a": true, "an": true, "the": true, "of": true, "for": true, "to": true,
	"in": true, "on": true, "with": true, "and": true, "or": true, "is": true, "are": true, "be": true, "we": true}

func titleWords(s string) map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if fillerWords[w] {
			continue
		}
		for _, suf := range []string{"ing", "ed", "es", "s"} {
			if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
				w = strings.TrimSuffix(w, suf)
				break
			}
		}
		words[w] = true
	}
	return words
}

// titleSimilarity is the Jaccard index of two titles' words.
func titleSimilarity(a, b string) float64 {
	wa, wb := titleWords(a), titleWords(b)
	if len(wa) == 0 || len(wb) == 0 {
		return 0
	}
	both := 0
	for w := range wa {
		if wb[w] {
			both++
		}
	}
	return float64(both) / float64(len(wa)+len(wb)-both)
}
