package entry

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fmBlock is a frontmatter block at the very start of a text.
type fmBlock struct {
	yaml      string // the lines between the delimiters
	startLine int    // file line of the first YAML line
	body      string // the text after the closing delimiter
	bodyLine  int    // file line the body starts on
}

// splitFrontmatter finds a frontmatter block: a first line "---" and a
// later line "---" (or YAML's "..."). found is false when the text does not
// start with "---"; closed is false when no closing line exists.
func splitFrontmatter(t string) (fm fmBlock, found, closed bool) {
	first, rest, hasNL := strings.Cut(t, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return fmBlock{}, false, false
	}
	if !hasNL {
		return fmBlock{}, true, false
	}
	off := 0
	line := 2
	for off <= len(rest) {
		end := strings.IndexByte(rest[off:], '\n')
		var l string
		next := len(rest) + 1
		if end < 0 {
			l = rest[off:]
		} else {
			l = rest[off : off+end]
			next = off + end + 1
		}
		if d := strings.TrimRight(l, " \t"); d == "---" || d == "..." {
			body := ""
			if next <= len(rest) {
				body = rest[next:]
			}
			return fmBlock{yaml: rest[:off], startLine: 2, body: body, bodyLine: line + 1}, true, true
		}
		off = next
		line++
	}
	return fmBlock{}, true, false
}

// yamlField is one top-level key of a YAML mapping.
type yamlField struct {
	key  string
	node *yaml.Node
	line int // file line
}

// errYAML carries a frontmatter failure and the file line it was found on.
type errYAML struct {
	line int
	msg  string
}

func (e *errYAML) Error() string { return e.msg }

var yamlLineRE = lazyRegexp(`line (\d+)`)

// parseYAMLFields parses src (which starts on file line firstLine) as a YAML
// mapping and returns its keys in order. Merge keys ("<<: *base") are
// expanded; a key written twice keeps its first value (a warning is the
// caller's business, via dups).
func parseYAMLFields(src string, firstLine int, c *yconv) (fields []yamlField, dups []yamlField, err error) {
	var doc yaml.Node
	if err := safeUnmarshal([]byte(src), &doc); err != nil {
		line := firstLine
		if m := yamlLineRE().FindStringSubmatch(err.Error()); m != nil {
			if n, e := strconv.Atoi(m[1]); e == nil && n < 1<<20 {
				line = firstLine + n - 1
			}
		}
		return nil, nil, &errYAML{line: line, msg: err.Error()}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil, nil // empty frontmatter
	}
	top := doc.Content[0]
	if top.Kind == yaml.ScalarNode && top.ShortTag() == "!!null" {
		return nil, nil, nil
	}
	if top.Kind != yaml.MappingNode {
		return nil, nil, &errYAML{line: firstLine + top.Line - 1, msg: "frontmatter is not a YAML mapping"}
	}
	pairs, err := c.pairs(top, 0)
	if err != nil {
		return nil, nil, &errYAML{line: firstLine, msg: err.Error()}
	}
	seen := map[string]bool{}
	for _, p := range pairs {
		f := yamlField{key: p.key, node: p.val, line: firstLine + p.line - 1}
		if seen[p.key] {
			if !p.merged {
				dups = append(dups, f)
			}
			continue
		}
		seen[p.key] = true
		fields = append(fields, f)
	}
	return fields, dups, nil
}

// safeUnmarshal guards against panics inside the YAML library: Parse must
// never panic, whatever the input.
func safeUnmarshal(b []byte, out *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	return yaml.Unmarshal(b, out)
}

// yconv converts YAML nodes to plain Go values. It follows aliases itself
// (decoding into yaml.Node does not expand them), so it also enforces the
// alias budget that protects against "billion laughs" documents.
type yconv struct {
	aliasNodes int // nodes visited through aliases so far
}

const maxAliasNodes = 100_000

var errAliasBomb = errors.New("frontmatter expands too many aliases")

// resolve follows alias nodes to their target.
func (c *yconv) resolve(n *yaml.Node) (*yaml.Node, bool, error) {
	via := false
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > 100 {
			return nil, false, errAliasBomb
		}
		n = n.Alias
		via = true
	}
	return n, via, nil
}

type yamlPair struct {
	key    string
	val    *yaml.Node
	line   int
	merged bool
}

// pairs returns a mapping's key/value pairs, merge keys expanded after the
// explicit keys (explicit keys win).
func (c *yconv) pairs(m *yaml.Node, depth int) ([]yamlPair, error) {
	if depth > maxYAMLDepth {
		return nil, errors.New("frontmatter is nested too deeply")
	}
	var out, merged []yamlPair
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, _, err := c.resolve(m.Content[i])
		if err != nil {
			return nil, err
		}
		v := m.Content[i+1]
		if k == nil || k.Kind != yaml.ScalarNode {
			continue // complex keys have no JSON form
		}
		if k.Value == "<<" && k.ShortTag() == "!!merge" {
			rv, _, err := c.resolve(v)
			if err != nil {
				return nil, err
			}
			srcs := []*yaml.Node{rv}
			if rv != nil && rv.Kind == yaml.SequenceNode {
				srcs = rv.Content
			}
			for _, s := range srcs {
				s, _, err := c.resolve(s)
				if err != nil {
					return nil, err
				}
				if s == nil || s.Kind != yaml.MappingNode {
					continue
				}
				if err := c.charge(len(s.Content)); err != nil {
					return nil, err
				}
				sub, err := c.pairs(s, depth+1)
				if err != nil {
					return nil, err
				}
				for _, p := range sub {
					p.merged = true
					p.line = k.Line
					merged = append(merged, p)
				}
			}
			continue
		}
		out = append(out, yamlPair{key: k.Value, val: v, line: k.Line})
	}
	return append(out, merged...), nil
}

func (c *yconv) charge(n int) error {
	c.aliasNodes += n
	if c.aliasNodes > maxAliasNodes {
		return errAliasBomb
	}
	return nil
}

// value converts a node to a value encoding/json can marshal: maps with
// string keys, []any, string, bool, int, float64 or nil. Timestamps and
// non-finite floats stay as the text written.
func (c *yconv) value(n *yaml.Node, depth int, viaAlias bool) (any, error) {
	if depth > maxYAMLDepth {
		return nil, errors.New("frontmatter is nested too deeply")
	}
	n, via, err := c.resolve(n)
	if err != nil {
		return nil, err
	}
	if n == nil {
		return nil, nil
	}
	viaAlias = viaAlias || via
	if viaAlias {
		if err := c.charge(1); err != nil {
			return nil, err
		}
	}
	switch n.Kind {
	case yaml.ScalarNode:
		return scalarValue(n), nil
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, it := range n.Content {
			v, err := c.value(it, depth+1, viaAlias)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case yaml.MappingNode:
		ps, err := c.pairs(n, depth+1)
		if err != nil {
			return nil, err
		}
		out := make(map[string]any, len(ps))
		for _, p := range ps {
			if _, dup := out[p.key]; dup {
				continue
			}
			v, err := c.value(p.val, depth+1, viaAlias)
			if err != nil {
				return nil, err
			}
			out[p.key] = v
		}
		return out, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], depth+1, viaAlias)
	}
	return nil, nil
}

// scalarValue types a scalar the way YAML resolved it.
func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		var i int
		if n.Decode(&i) == nil {
			return i
		}
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return n.Value
}

// scalar returns a node's text when it is a scalar. null reports isNull.
func (c *yconv) scalar(n *yaml.Node) (s string, isNull, ok bool, err error) {
	n, _, err = c.resolve(n)
	if err != nil || n == nil {
		return "", true, err == nil, err
	}
	if n.Kind != yaml.ScalarNode {
		return "", false, false, nil
	}
	if n.ShortTag() == "!!null" {
		return "", true, true, nil
	}
	return n.Value, false, true, nil
}

// strings returns a list value: a sequence of scalars, or one scalar as a
// one-element list (null and "" are the empty list). ok is false when the
// value or an item is not a scalar.
func (c *yconv) strings(n *yaml.Node) ([]string, bool, error) {
	n, via, err := c.resolve(n)
	if err != nil {
		return nil, false, err
	}
	out := []string{}
	if n == nil {
		return out, true, nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" || strings.TrimSpace(n.Value) == "" {
			return out, true, nil
		}
		return append(out, strings.TrimSpace(n.Value)), true, nil
	case yaml.SequenceNode:
		if via {
			if err := c.charge(len(n.Content)); err != nil {
				return nil, false, err
			}
		}
		ok := true
		for _, it := range n.Content {
			s, isNull, sok, err := c.scalar(it)
			if err != nil {
				return nil, false, err
			}
			if !sok {
				ok = false
				continue
			}
			if s = strings.TrimSpace(s); !isNull && s != "" {
				out = append(out, s)
			}
		}
		return out, ok, nil
	}
	return out, false, nil
}
