//go:build !kontextreader

package tomldoc

import (
	"bytes"
	"errors"

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
		return &Error{Row: row, Positioned: true, Message: de.Error()}
	}
	return &Error{Message: err.Error()}
}
