package engine

import "runtime"

// nativeBuild is false in the WebAssembly build, whose engine never has a
// git repository, git history, a writer or models (cmd/wasm opens Snapshot
// surfaces over an in-memory file set). Code that serves only those guards
// itself with it, and the compiler drops it from the wasm. Options.Git and
// Options.History are ignored there.
const nativeBuild = runtime.GOOS != "js"
