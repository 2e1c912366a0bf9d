package engine

import (
	"context"
	_ "embed"
	"encoding/json"
	"github.com/kontext/kontext/engine/api"
	"sync"
)

//go:generate go run ./internal/apigen -schemas schemas.json -dts ../wasm/index.d.ts -results ../internal/mcptools/results.json

// schemasJSON holds the input schemas generated from engine/api by
// go generate, so no reflection library is linked into the wasm.
//
//go:embed schemas.json
var schemasJSON []byte

var (
	schemasOnce sync.Once
	schemas     map[string]json.RawMessage
)

func loadSchemas() map[string]json.RawMessage {
	schemasOnce.Do(func() {
		if err := json.Unmarshal(schemasJSON, &schemas); err != nil {
			panic("engine: schemas.json is corrupt; run go generate ./engine: " + err.Error())
		}
	})
	return schemas
}

func runDescribe(_ context.Context, _ *Engine, in *api.DescribeInput) (any, error) {
	all := loadSchemas()
	if in.Operation != "" {
		s, ok := all[in.Operation]
		if !ok {
			return nil, unsupported(in.Operation, isPlanned(in.Operation), Native)
		}
		return &api.DescribeOneResult{Operation: in.Operation, Input: s}, nil
	}
	res := &api.DescribeResult{Operations: map[string]api.OperationSchema{}}
	for name, s := range all {
		res.Operations[name] = api.OperationSchema{Input: s}
	}
	return res, nil
}

// InputSchema is the generated JSON Schema of op's input (false for an
// operation without one). MCP tool schemas are cut from it.
func InputSchema(op string) (json.RawMessage, bool) {
	s, ok := loadSchemas()[op]
	return s, ok
}
