// Command benchrepo writes the benchmarks' synthetic repository (package
// benchcorpus: n entries, three globs each, committed once) for the Node
// tests and benchmarks, and prints its query paths as JSON.
//
//	go run ./build/benchrepo DIR N
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/kontext/kontext/internal/benchcorpus"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: benchrepo DIR N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "benchrepo: N must be a positive number")
		os.Exit(2)
	}
	if err := os.MkdirAll(os.Args[1], 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "benchrepo:", err)
		os.Exit(1)
	}
	if _, err := benchcorpus.Repo(os.Args[1], n); err != nil {
		fmt.Fprintln(os.Stderr, "benchrepo:", err)
		os.Exit(1)
	}
	_, paths := benchcorpus.Governing(n)
	json.NewEncoder(os.Stdout).Encode(map[string]any{"paths": paths})
}
