//go:build !kontextreader

package tomldoc

import (
	"bytes"
	"errors"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Decode decodes text into v (a pointer to a struct with toml tags)
// strictly: a key v has no field for is an error. A problem of the
// document is an *Error.
func Decode(text []byte, v any) error {
	err := toml.NewDecoder(bytes.NewReader(text)).DisallowUnknownFields().Decode(v)
	if err == nil {
		return nil
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		e := &Error{Message: strict.Error()}
		for _, k := range strict.Errors {
			row, _ := k.Position()
			e.Unknown = append(e.Unknown, UnknownKey{Row: row, Key: k.Key()})
		}
		return e
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return &Error{Row: row, Positioned: true, Message: plain(strings.Join(de.Key(), "."), de.Error())}
	}
	return &Error{Message: plain("", err.Error())}
}

// plain says a decoding error in the document's words: go-toml names the
// Go field and type it decodes into ("cannot decode TOML string into
// struct field config.fileConfig.Version of type int"), which means
// nothing to a person editing the file.
func plain(key, msg string) string {
	const pre = "toml: cannot decode TOML "
	if len(msg) > len(pre) && msg[:len(pre)] == pre {
		rest := msg[len(pre):]
		if i, j := strings.IndexByte(rest, ' '), strings.LastIndex(rest, " of type "); i > 0 && j > i {
			if key == "" {
				key = "a value"
			}
			return key + " must be " + goType(rest[j+len(" of type "):]) + ", not a TOML " + rest[:i]
		}
	}
	msg = strings.TrimPrefix(msg, "toml: ")
	if key != "" {
		return key + ": " + msg
	}
	return msg
}

// goType names a Go type as a TOML value.
func goType(t string) string {
	for len(t) > 0 && t[0] == '*' {
		t = t[1:]
	}
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case len(t) >= 3 && (t[:3] == "int" || t[:3] == "uin"):
		return "an integer"
	case len(t) >= 5 && t[:5] == "float":
		return "a number"
	case len(t) >= 2 && t[:2] == "[]":
		return "an array"
	}
	return "a table"
}
