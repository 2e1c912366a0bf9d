package entry

import "github.com/kontext/kontext/engine/apierr"

// NoParser is the error of a request the reader engine cannot answer: n
// files (first among them) must be parsed and it has no parser.
func NoParser(first string, n int) *apierr.Error {
	if n > 1 {
		return apierr.New(apierr.UnsupportedOperation, "%s and %d more files must be parsed; %s", first, n-1, noParserHelp)
	}
	return apierr.New(apierr.UnsupportedOperation, "%s must be parsed; %s", first, noParserHelp)
}

const noParserHelp = "this is the reader engine (kontext-reader.wasm), which answers from a bundle's compiled snapshot and has no parser: " +
	"open the files with the full engine (kontext.wasm), or build the bundle again with kontext bundle so that its snapshot matches them"
