// Package api is the data of kontext's application API: every operation's
// input and result type, the Entry view, and the envelope. It holds no
// behaviour, so every surface (the engine, the native CLI, MCP, the WASM
// build, the generators of JSON Schemas and TypeScript declarations) can
// import it. The jsonschema tags are the field documentation that
// api.describe, the MCP tool schemas and wasm/index.d.ts are generated from.
package api
