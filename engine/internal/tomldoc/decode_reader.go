//go:build kontextreader

package tomldoc

// Decode, in the reader engine, is Recorded: the decoding a portable
// snapshot recorded of text, ErrNoParser for a text none recorded.
func Decode(text []byte, v any) error { return Recorded(text, v) }
