package config

import (
	"bytes"
	"errors"

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
		return &TOMLError{Row: row, Positioned: true, Message: de.Error()}
	}
	return &TOMLError{Message: err.Error()}
}
