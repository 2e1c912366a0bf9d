//go:build js && wasm

package engine

// nativeBuild: see build_native.go. Options.Git and Options.History are
// ignored here.
const nativeBuild = false
