//go:build !linux

package relay

// Hand: no daemon serves here.
func Hand(string, *Request) (*Reply, error) { return nil, ErrNotSupported }

// FindGitDir is "": no daemon serves here, so none is looked for.
func FindGitDir(string) string { return "" }

// Socket is "": no daemon serves here.
func Socket(string) string { return "" }

// FindRepo: no daemon serves here, so none is looked for.
func FindRepo(string) (worktree, gitDir string) { return "", "" }
