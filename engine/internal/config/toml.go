package config

import (
	"bytes"
	"errors"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// TOMLError is a TOML document's problem: keys its target does not have
// (each with its line), or a syntax or type error, at Row when Positioned.
type TOMLError struct {
	Unknown    []UnknownKey
	Row        int
	Positioned bool
	Message    string
}

// UnknownKey is one key the target has no field for.
type UnknownKey struct {
	Row int
	Key []string
}

func (e *TOMLError) Error() string { return e.Message }

// DecodeTOML decodes text into v (a pointer to a struct with toml tags)
// strictly: a key v has no field for is an error. A problem of the
// document is a *TOMLError.
func DecodeTOML(text []byte, v any) error {
	err := toml.NewDecoder(bytes.NewReader(text)).DisallowUnknownFields().Decode(v)
	if err == nil {
		return nil
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		e := &TOMLError{Message: strict.Error()}
		for _, k := range strict.Errors {
			row, _ := k.Position()
			e.Unknown = append(e.Unknown, UnknownKey{Row: row, Key: k.Key()})
		}
		return e
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		return &TOMLError{Row: row, Positioned: true, Message: plainTOML(strings.Join(de.Key(), "."), de.Error())}
	}
	return &TOMLError{Message: plainTOML("", err.Error())}
}

// plainTOML says a decoding error in the document's words: go-toml names
// the Go field and type it decodes into ("cannot decode TOML string into
// struct field config.fileConfig.Version of type int"), which means
// nothing to a person editing the file.
func plainTOML(key, msg string) string {
	if rest, ok := strings.CutPrefix(msg, "toml: cannot decode TOML "); ok {
		if i, j := strings.IndexByte(rest, ' '), strings.LastIndex(rest, " of type "); i > 0 && j > i {
			if key == "" {
				key = "a value"
			}
			return key + " must be " + tomlType(rest[j+len(" of type "):]) + ", not a TOML " + rest[:i]
		}
	}
	msg = strings.TrimPrefix(msg, "toml: ")
	if key != "" {
		return key + ": " + msg
	}
	return msg
}

// tomlType names a Go type as a TOML value.
func tomlType(t string) string {
	t = strings.TrimLeft(t, "*")
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	}
	return "a table"
}
