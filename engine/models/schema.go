package models

import (
	"fmt"
	"sort"
	"unicode/utf8"
)

// The schemas sent to a model are built here as plain maps: each is
// self-contained (no $ref, which many OpenAI-compatible servers refuse)
// and uses only the keywords validate checks.

func str(maxLen int) map[string]any { return map[string]any{"type": "string", "maxLength": maxLen} }

func enum(values ...string) map[string]any {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return map[string]any{"type": "string", "enum": vs}
}

func arr(items map[string]any, maxItems int) map[string]any {
	return map[string]any{"type": "array", "items": items, "maxItems": maxItems}
}

func obj(props map[string]any, required ...string) map[string]any {
	req := make([]any, len(required))
	for i, r := range required {
		req[i] = r
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

// validate checks v against the subset of JSON Schema the schemas above
// use: type, properties, required, additionalProperties false, items,
// enum, maxLength, minLength, maxItems.
func validate(s map[string]any, v any, at string) error {
	switch s["type"] {
	case "object":
		o, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is not an object", at)
		}
		props, _ := s["properties"].(map[string]any)
		for _, r := range s["required"].([]any) {
			if _, ok := o[r.(string)]; !ok {
				return fmt.Errorf("%s has no %q", at, r)
			}
		}
		// Sorted, so the first problem named is the same on every run.
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			x := o[k]
			ps, ok := props[k].(map[string]any)
			if !ok {
				return fmt.Errorf("%s has the unknown field %q", at, k)
			}
			if err := validate(ps, x, at+"."+k); err != nil {
				return err
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s is not an array", at)
		}
		if n, ok := s["maxItems"].(int); ok && len(a) > n {
			return fmt.Errorf("%s has %d items (at most %d)", at, len(a), n)
		}
		for i, x := range a {
			if err := validate(s["items"].(map[string]any), x, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s is not a string", at)
		}
		if n, ok := s["maxLength"].(int); ok && utf8.RuneCountInString(str) > n {
			return fmt.Errorf("%s is longer than %d characters", at, n)
		}
		if n, ok := s["minLength"].(int); ok && utf8.RuneCountInString(str) < n {
			return fmt.Errorf("%s is shorter than %d characters", at, n)
		}
		if vs, ok := s["enum"].([]any); ok {
			for _, e := range vs {
				if e == str {
					return nil
				}
			}
			return fmt.Errorf("%s is %q, not one of %v", at, str, vs)
		}
	}
	return nil
}
