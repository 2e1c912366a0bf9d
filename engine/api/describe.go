package api

import (
	"encoding/json"
)

// OperationSchema is one operation's input schema.
type OperationSchema struct {
	Input json.RawMessage `json:"input"`
}

// DescribeResult is api.describe without an operation.
type DescribeResult struct {
	Operations map[string]OperationSchema `json:"operations"`
}

// DescribeOneResult is api.describe for one operation.
type DescribeOneResult struct {
	Operation string          `json:"operation"`
	Input     json.RawMessage `json:"input"`
}
