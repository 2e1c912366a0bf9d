package entry

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// relationLines gathers the relations of one ADR: supersession both ways,
// typed links, and the extra.links of API v1.
type relationLines struct {
	sup, supBy []string
	typed      []TypedLink
	extra      []Link
}

// add reads one line. strict: only a line starting with a relation word
// counts; legacy: the line is one of those extra.links always held.
func (r *relationLines) add(line string, strict, legacy bool) {
	rel, targets, ok := parseRelation(line)
	if !ok {
		return
	}
	if first, _, _ := strings.Cut(rel, " "); strict && !oneOf(relationWords, first) {
		return
	}
	switch rel {
	case "supersedes", "replaces":
		for _, t := range targets {
			r.sup = appendUnique(r.sup, t.id)
		}
		return
	case "superseded by", "replaced by":
		for _, t := range targets {
			r.supBy = appendUnique(r.supBy, t.id)
		}
		return
	}
	for _, t := range targets {
		tl := TypedLink{Type: rel, Target: t.id, Text: t.text}
		dup := t.elsewhere // a document in another directory, not a record of this log
		for _, x := range r.typed {
			dup = dup || (x.Type == tl.Type && x.Target == tl.Target)
		}
		if !dup {
			r.typed = append(r.typed, tl)
		}
		if lk := (Link{Relation: rel, Target: t.id}); legacy && !containsLink(r.extra, lk) {
			r.extra = append(r.extra, lk)
		}
	}
}

// sectionBlocks returns the blocks of the first section whose heading is
// named name ("## Links <!-- optional -->" is "links"), up to the next
// heading of the same or a higher level.
func sectionBlocks(hs []heading, blocks []ast.Node, name string) []ast.Node {
	for k, h := range hs {
		n, _ := headingName(h.text)
		if i := strings.Index(n, "<!--"); i >= 0 {
			n = strings.TrimSpace(n[:i])
		}
		if n != name {
			continue
		}
		end := len(blocks)
		for _, h2 := range hs[k+1:] {
			if h2.level <= h.level {
				end = h2.index
				break
			}
		}
		var out []ast.Node
		for i := h.index + 1; i < end; i++ {
			if _, isH := blocks[i].(*ast.Heading); !isH {
				out = append(out, blocks[i])
			}
		}
		return out
	}
	return nil
}

// readBulletMeta reads MADR 2 and log4brains metadata lines of the
// preamble: "* Deciders: …", "Technical Story: …", "- Tags: a, b". Template
// placeholders ("[list everyone involved …]") are not values.
func readBulletMeta(b *builder, pre []textLine) {
	for _, l := range pre {
		s := strings.TrimSpace(l.text)
		s = strings.TrimLeft(s, "-*+ ")
		key, val, ok := strings.Cut(s, ":")
		if !ok {
			continue
		}
		key = strings.ToLower(strings.TrimSpace(strings.Trim(key, "*_ ")))
		val = strings.TrimSpace(strings.Trim(strings.TrimSpace(stripComment(val)), "*_"))
		if val == "" || strings.HasPrefix(val, "[") || strings.HasPrefix(val, "{") {
			continue
		}
		switch key {
		case "deciders":
			if _, set := b.e.Extra["deciders"]; !set {
				b.e.Extra["deciders"] = val
			}
		case "technical story":
			if _, set := b.e.Extra["technical_story"]; !set {
				b.e.Extra["technical_story"] = val
			}
		case "tags":
			if len(b.e.Tags) == 0 {
				b.setList("tags", strings.FieldsFunc(val, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }), l.line)
			}
		}
	}
}

// stripComment drops a trailing HTML comment ("accepted <!-- optional -->").
func stripComment(s string) string {
	if i := strings.Index(s, "<!--"); i >= 0 {
		return s[:i]
	}
	return s
}
