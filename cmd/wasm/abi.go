package main

// ABIResult is abi's result.
type ABIResult struct {
	ABI        int      `json:"abi"`
	Version    string   `json:"version"`
	Operations []string `json:"operations"`
	Functions  []string `json:"functions"`
	// Parser is false in the reader engine (kontext-reader.wasm): it
	// answers from compiled snapshots and parses no file.
	Parser bool `json:"parser"`
}
