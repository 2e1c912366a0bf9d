// Package suggest proposes path globs for an entry that has none, from
// two kinds of evidence: repository paths and identifiers its text
// mentions that exist in the tree, and the files changed together with
// the commits that added or amended the entry's file. It is pure: the
// caller hands it the text, the commits and an existence check.
package suggest

import (
	"github.com/kontext/kontext/engine/api"
	"math"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Commit is one commit that added or amended the record: its sha and the
// other files it changed.
type Commit struct {
	SHA   string
	Files []string
}

// Tree answers what exists in the repository.
type Tree interface {
	// IsFile reports a file that exists at HEAD.
	IsFile(p string) bool
	// IsDir reports a directory that exists at HEAD.
	IsDir(p string) bool
	// Files lists known files (for identifier mentions); may be partial.
	Files() []string
}

// Input is one entry to suggest for.
type Input struct {
	Text    string   // title, summary and body
	Commits []Commit // newest first
	// Exclude reports files that are never suggested (knowledge files,
	// documentation).
	Exclude func(p string) bool
	Have    []string // the entry's paths already (not suggested again)
}

// maxCommitFiles: a commit changing more files than this alongside the
// record is a sweep (an import, a reformat), not evidence.
const maxCommitFiles = 40

// maxIdentFiles: an identifier naming more files than this says nothing.
const maxIdentFiles = 3

// Confidence weights of the evidence kinds (combined as independent
// signals: 1 - Π(1 - w)).
const (
	wPathMention  = 0.6
	wIdentMention = 0.4
	wCochange     = 0.6 // times the share of the commit's files below the glob
)

// minConfidence: weaker suggestions are noise and left out.
const minConfidence = 0.15

var (
	pathToken = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("(?:^|[\\s(\\[\"'`<])(\\.{0,2}/?[A-Za-z0-9_@.+-]+(?:/[A-Za-z0-9_@.+-]+)+/?)")
	})
	codeSpan   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`\\n]{1,80})`") })
	identifier = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{3,}(?:\.[A-Za-z_][A-Za-z0-9_]+)?$`)
	})
	fileName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+\.[A-Za-z0-9]{1,6}$`) })
)

// Suggest returns up to max globs for in, most confident first.
func Suggest(in Input, tree Tree, max int) []api.SuggestedGlob {
	byGlob := map[string]*api.SuggestedGlob{}
	weights := map[string][]float64{}
	add := func(glob string, ev api.PathEvidence, w float64) {
		g := byGlob[glob]
		if g == nil {
			g = &api.SuggestedGlob{Glob: glob}
			byGlob[glob] = g
		}
		g.Evidence = append(g.Evidence, ev)
		weights[glob] = append(weights[glob], w)
	}
	excluded := func(p string) bool { return in.Exclude != nil && in.Exclude(p) }

	// (b) co-changed files, aggregated into the narrowest directories.
	var files []string
	perCommit := map[string][]string{}
	for _, c := range in.Commits {
		var keep []string
		for _, f := range c.Files {
			if !excluded(f) && tree.IsFile(f) {
				keep = append(keep, f)
			}
		}
		if len(keep) == 0 || len(keep) > maxCommitFiles {
			continue
		}
		perCommit[c.SHA] = keep
		files = append(files, keep...)
	}
	dirGlobs := Aggregate(files)
	for _, glob := range dirGlobs {
		// Each commit counts by how much of it lies below the glob: a
		// focused commit is strong evidence, a broad one (an initial
		// import touching every directory) weak.
		var ws []float64
		for _, c := range in.Commits {
			var under []string
			for _, f := range perCommit[c.SHA] {
				if Covers(glob, f) {
					under = append(under, f)
				}
			}
			if len(under) > 0 {
				add(glob, api.PathEvidence{Type: "cochange", Commit: c.SHA, Files: under}, 0)
				ws = append(ws, wCochange*float64(len(under))/float64(len(perCommit[c.SHA])))
			}
		}
		weights[glob] = ws
	}

	// (a) mentions: paths, then identifiers and file names in code spans.
	seen := map[string]bool{}
	mention := func(text, p string, w float64) {
		glob := p
		if strings.HasSuffix(p, "/") {
			glob = p + "**"
		}
		for _, g := range dirGlobs {
			if Covers(g, strings.TrimSuffix(p, "/")) {
				glob = g // a mention inside a co-change directory strengthens it
				break
			}
		}
		if seen[glob+"\x00"+text] {
			return
		}
		seen[glob+"\x00"+text] = true
		add(glob, api.PathEvidence{Type: "mention", Text: text, Path: strings.TrimSuffix(p, "/")}, w)
	}
	for _, m := range pathToken().FindAllStringSubmatch(in.Text, -1) {
		tok := strings.TrimRight(m[1], ".,;:)")
		if strings.Contains(tok, "://") || strings.HasPrefix(tok, "www.") {
			continue
		}
		p := strings.TrimPrefix(strings.TrimPrefix(tok, "./"), "/")
		if strings.HasPrefix(p, "../") || p == "" {
			continue
		}
		p = path.Clean(p)
		switch {
		case excluded(p):
		case tree.IsFile(p):
			mention(tok, p, wPathMention)
		case tree.IsDir(p):
			mention(tok, p+"/", wPathMention)
		}
	}
	var known []string
	for _, m := range codeSpan().FindAllStringSubmatch(in.Text, -1) {
		tok := strings.TrimSpace(m[1])
		if strings.Contains(tok, "/") {
			continue // a path: handled above
		}
		if known == nil {
			known = tree.Files()
		}
		switch {
		case fileName().MatchString(tok):
			for _, f := range known {
				if path.Base(f) == tok && !excluded(f) {
					mention("`"+tok+"`", f, wPathMention)
				}
			}
		case identifier().MatchString(tok):
			key := singular(normIdent(tok[strings.LastIndex(tok, ".")+1:]))
			var hits []string
			for _, f := range known {
				if singular(normIdent(stem(f))) == key && !excluded(f) {
					hits = append(hits, f)
				}
			}
			if len(hits) > maxIdentFiles {
				continue // a common name (Config, Handler): no evidence
			}
			for _, f := range hits {
				mention("`"+tok+"`", f, wIdentMention)
			}
		}
	}

	var out []api.SuggestedGlob
	for glob, g := range byGlob {
		if contains(in.Have, glob) {
			continue
		}
		miss := 1.0
		for _, w := range weights[glob] {
			miss *= 1 - w
		}
		c := 1 - miss
		if strings.Count(glob, "/") == 1 && strings.HasSuffix(glob, "/**") {
			c -= 0.1 // a top-level directory is a broad rule
		}
		if c < minConfidence {
			continue
		}
		g.Confidence = math.Round(math.Min(0.95, c)*100) / 100
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Confidence != out[j].Confidence {
			return out[i].Confidence > out[j].Confidence
		}
		return out[i].Glob < out[j].Glob
	})
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	if out == nil {
		out = []api.SuggestedGlob{}
	}
	return out
}

// Aggregate covers files with the narrowest directory globs: each file's
// directory ("dir/**"; a file at the root stays itself), a directory
// inside another one dropped, and sibling directories merged into their
// parent when the parent is not the root.
func Aggregate(files []string) []string {
	dirs := map[string]bool{}
	var roots []string
	for _, f := range files {
		d := path.Dir(f)
		if d == "." {
			if !contains(roots, f) {
				roots = append(roots, f)
			}
			continue
		}
		dirs[d] = true
	}
	// Siblings under one parent (not the root, not a top-level dir such
	// as src/) merge: src/billing/tax + src/billing/invoice → src/billing.
	for changed := true; changed; {
		changed = false
		byParent := map[string]int{}
		for d := range dirs {
			if p := path.Dir(d); p != "." && strings.Contains(p, "/") {
				byParent[p]++
			}
		}
		for p, n := range byParent {
			if n > 1 {
				for d := range dirs {
					if path.Dir(d) == p {
						delete(dirs, d)
					}
				}
				dirs[p] = true
				changed = true
			}
		}
	}
	var out []string
	for d := range dirs {
		covered := false
		for o := range dirs {
			if o != d && strings.HasPrefix(d, o+"/") {
				covered = true
			}
		}
		if !covered {
			out = append(out, d+"/**")
		}
	}
	out = append(out, roots...)
	sort.Strings(out)
	return out
}

// Covers reports whether glob (a file or "dir/**") covers file f.
func Covers(glob, f string) bool {
	if d, ok := strings.CutSuffix(glob, "/**"); ok {
		return f == d || strings.HasPrefix(f, d+"/")
	}
	return glob == f
}

func stem(f string) string {
	b := path.Base(f)
	if i := strings.Index(b, "."); i > 0 {
		return b[:i]
	}
	return b
}

// normIdent folds case and separators: InvoiceTotal, invoice_total and
// invoice-total are one identifier.
func normIdent(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

// singular drops one plural "s" (`sessions` names session.go).
func singular(s string) string {
	if len(s) > 4 && strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") {
		return s[:len(s)-1]
	}
	return s
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
