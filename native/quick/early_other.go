//go:build !linux || !(amd64 || arm64)

package quick

// Invocation is a command line the early answer takes.
type Invocation struct {
	Op    string
	Dir   string
	Paths []string
}

// Sidecar is a stored sidecar whose header matched this process.
type Sidecar struct {
	Root    string
	Aliases []string
	Answer  string
}

// Found: the early answer runs on Linux (amd64, arm64) only.
func Found() (*Invocation, *Sidecar) { return nil, nil }

// Unchanged: never, where there is no early answer.
func Unchanged() bool { return false }

// Spoiled: nothing to tell where there is no early answer.
func Spoiled() {}
