package main

// ABIResult is abi's result.
type ABIResult struct {
	ABI        int      `json:"abi"`
	Version    string   `json:"version"`
	Operations []string `json:"operations"`
	Functions  []string `json:"functions"`
	// Parser is always true: the one engine parses files (a reader-only
	// engine that answered false is gone; the field stays for callers
	// that check it).
	Parser bool `json:"parser"`
	// MCPProtocolVersions: the MCP revisions the mcp function speaks
	// (mcptools.ProtocolVersions), newest first; an HTTP server in front
	// of it refuses an MCP-Protocol-Version header outside them.
	MCPProtocolVersions []string `json:"mcp_protocol_versions"`
}
