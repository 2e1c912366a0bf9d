package verifyrun

import (
	"bytes"
	"errors"
	"github.com/kontext/kontext/native/internal/writer"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/kontext/kontext/engine"
)

// Pin is one [[verify]] entry of the user's trust file.
type Pin struct {
	Repository    string `toml:"repository"`
	ID            string `toml:"id"`
	Command       string `toml:"command"`
	CommandSHA256 string `toml:"command_sha256"`
	PinnedAt      string `toml:"pinned_at"`
}

type trustFile struct {
	Verify []Pin `toml:"verify"`
}

// TrustPath is the user's trust file: <config dir>/trust.toml.
func TrustPath() (string, error) {
	dir, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "trust.toml"), nil
}

// Trust is the native engine.Trust: the user's trust file, read on every
// question (a pin made by another process counts at once).
type Trust struct{}

var _ engine.Trust = Trust{}

// Pinned reports whether command is pinned for id in repository: an entry
// with that repository root, id and exact command whose command_sha256
// matches. An unreadable or malformed trust file pins nothing.
func (Trust) Pinned(repository, id, command string) bool {
	pins, err := readPins()
	if err != nil {
		return false
	}
	for _, p := range pins {
		if pinMatches(p, repository, id, command) {
			return true
		}
	}
	return false
}

func pinMatches(p Pin, repository, id, command string) bool {
	return filepath.Clean(p.Repository) == filepath.Clean(repository) && p.ID == id &&
		p.Command == command && p.CommandSHA256 == engine.CommandSHA256(command)
}

func readPins() ([]Pin, error) {
	path, err := TrustPath()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f trustFile
	if err := toml.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	return f.Verify, nil
}

// AddPin appends a pin of command for id in repository to the trust file
// (creating its directory; written atomically) and returns the file's
// path. An existing identical pin is kept and nothing is written.
func AddPin(repository, id, command string, now time.Time) (string, error) {
	path, err := TrustPath()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var f trustFile
	if err := toml.Unmarshal(data, &f); err != nil {
		return "", errors.New(path + " is not valid TOML (" + err.Error() + "); fix or remove it first")
	}
	for _, p := range f.Verify {
		if pinMatches(p, repository, id, command) {
			return path, nil
		}
	}
	block, err := toml.Marshal(trustFile{Verify: []Pin{{Repository: repository, ID: id, Command: command,
		CommandSHA256: engine.CommandSHA256(command), PinnedAt: now.UTC().Format("2006-01-02T15:04:05Z")}}})
	if err != nil {
		return "", err
	}
	out := bytes.Clone(data)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	out = append(out, block...)
	return path, writeAtomic(path, out)
}

func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return writer.AtomicWrite(path, data, 0o600)
}
