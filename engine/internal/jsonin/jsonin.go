// Package jsonin owns strict decoding of API input documents: size, UTF-8,
// nesting depth, object-ness, unknown fields and wrong types all become
// invalid_input errors whose messages name the field.
package jsonin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/kontext/kontext/engine/apierr"
)

// MaxSize is the largest input document (2 MiB).
const MaxSize = 2 << 20

// MaxDepth is the deepest nesting of objects and arrays accepted.
const MaxDepth = 64

// Check validates the raw document without decoding it into a type.
func Check(data []byte) error {
	if len(data) > MaxSize {
		return apierr.Invalid("input is %d bytes; the limit is %d bytes (2 MiB)", len(data), MaxSize)
	}
	if !utf8.Valid(data) {
		return apierr.Invalid("input is not valid UTF-8")
	}
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return apierr.Invalid("input is empty; pass a JSON object such as {}")
	}
	if t[0] != '{' {
		return apierr.Invalid("input must be a JSON object, got %s", kindOf(t[0]))
	}
	return checkDepth(t)
}

// Decode checks data and decodes it into v (a pointer to an input struct),
// rejecting unknown fields and trailing data.
func Decode(data []byte, v any) error {
	if err := Check(data); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return describe(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return apierr.Invalid("input has data after the JSON object; pass exactly one object")
	}
	return nil
}

// Field decodes one top-level field of an object document into v; a missing
// field leaves v unchanged. It does not validate the rest of the document.
func Field(data []byte, name string, v any) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return describe(err)
	}
	raw, ok := m[name]
	if !ok {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return apierr.Invalid("field %q: %s", name, describe(err).Error())
	}
	return nil
}

func describe(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "input"
		}
		return apierr.Invalid("field %q must be %s, got a JSON %s", field, goTypeName(te.Type.String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return apierr.Invalid("malformed JSON at byte %d: %v", se.Offset, se)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return apierr.Invalid("unknown field %s; see api.describe for this operation's input", f)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return apierr.Invalid("malformed JSON: the document ends early")
	}
	return apierr.Invalid("malformed JSON: %s", strings.TrimPrefix(msg, "json: "))
}

func goTypeName(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "[]string":
		return "an array of strings"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case t == "bool":
		return "a boolean"
	case strings.Contains(t, "int"):
		return "an integer" // 1.5 is a JSON number, but not one of these
	case strings.Contains(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "*"):
		return goTypeName(t[1:])
	}
	return "an object"
}

func kindOf(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	if c == '-' || (c >= '0' && c <= '9') {
		return "a number"
	}
	return "malformed JSON"
}

// checkDepth rejects documents nested deeper than MaxDepth before the
// decoder recurses into them.
func checkDepth(data []byte) error {
	depth, inStr, esc := 0, false, false
	for _, c := range data {
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
			if depth > MaxDepth {
				return apierr.Invalid("input is nested deeper than %d levels", MaxDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// Errorf is a helper for field validation messages.
func Errorf(field, format string, args ...any) error {
	return apierr.Invalid("field %q: %s", field, fmt.Sprintf(format, args...))
}
