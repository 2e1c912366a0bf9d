//go:build !(js && wasm)

package engine

// nativeBuild is false in the WebAssembly build, whose engine never has a
// git repository, git history, a writer or models (cmd/wasm opens Snapshot
// surfaces over an in-memory file set). Code that serves only those guards itself with it,
// so the compiler drops it from the wasm, which has a size budget.
const nativeBuild = true
