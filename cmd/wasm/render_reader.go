//go:build js && wasm && kontextreader

package main

import (
	"syscall/js"

	"github.com/kontext/kontext/engine/apierr"
)

// parser: the reader engine answers from compiled snapshots only.
const parser = false

// render is not in the reader engine, which links no Markdown parser.
func render(_ []js.Value) (any, error) {
	return nil, apierr.New(apierr.UnsupportedOperation, "render needs the Markdown parser, and this is the reader engine (kontext-reader.wasm): load the full engine (kontext.wasm) to render entry bodies")
}
