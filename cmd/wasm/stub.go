//go:build !(js && wasm)

// Command wasm is kontext's engine as WebAssembly for the npm package
// @kontext/engine. It only does something when built with
// GOOS=js GOARCH=wasm (make wasm); this stub keeps `go build ./...` working.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "cmd/wasm must be built with GOOS=js GOARCH=wasm (make wasm)")
	os.Exit(2)
}
