// Package answer is the second half of kontext's early governing answer
// (package quick has the first): once the recorded inputs are known to
// be unchanged it looks the requested paths up in the sidecar's match
// index, prints the listing with the code the full command prints it
// with (internal/table), and exits. It needs the matcher, so it runs
// later in initialisation than package quick, but still before the
// Markdown and YAML parsers, jq and the MCP SDK.
package answer
