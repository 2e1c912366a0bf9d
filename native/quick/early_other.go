//go:build !linux || !(amd64 || arm64)

package quick

// Invocation is a `governing` command line the early answer takes.
type Invocation struct {
	Dir   string
	Paths []string
}

// Sidecar is a stored sidecar whose header matched this process.
type Sidecar struct {
	Root    string
	Aliases []string
	Answer  string
}

// Early: the early answer runs on Linux (amd64, arm64) only.
func Early() (*Invocation, *Sidecar, bool) { return nil, nil, false }
