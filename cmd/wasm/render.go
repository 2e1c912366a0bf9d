//go:build js && wasm && !kontextreader

package main

import (
	"syscall/js"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

// parser: this is the full engine, which parses files.
const parser = true

// render(markdown) is RenderMarkdown: {html, plain}.
func render(args []js.Value) (any, error) {
	src, ok, err := stringArg(args, 0, "markdown")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.Invalid("markdown is required")
	}
	return engine.RenderMarkdown(src), nil
}
