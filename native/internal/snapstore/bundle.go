package snapstore

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/kontext/kontext/native/internal/buildkey"
)

// Bundle keeps the compiled snapshot of the last bundle built in the
// worktree (bundle.build's `snapshot`, base64), under the key its builder
// derived from exactly what it compiled (the files and the revision).
// Compiling a bundle's snapshot re-encodes every entry (a fifth of
// `kontext review --out` at 10,000 entries); an unchanged knowledge base
// compiles to the same bytes, so a warm bundle reuses them. Each binary
// keeps its own file, as for File: another build may compile differently.
type Bundle struct {
	Path string
}

// NewBundle returns the bundle snapshot store of the worktree whose git
// dir is gitDir.
func NewBundle(gitDir string) *Bundle {
	sum := sha256.Sum256([]byte(buildkey.Key()))
	return &Bundle{Path: filepath.Join(gitDir, "kontext", "bundle-snapshot-"+hex.EncodeToString(sum[:6]))}
}

// The file is the magic, the key, the checksum of the snapshot (8 hex)
// and the snapshot, each but the last ending with a newline.
const bundleMagic = "KONTEXTBUNDLESNAP1\n"

// Load returns the snapshot stored under key; ok is false when there is
// none, it was stored under another key, or it fails its checksum. The
// string is the file mapped read-only (see load): it stays valid for the
// life of the process.
func (b *Bundle) Load(key string) (snapshot string, ok bool) {
	data, err := load(b.Path)
	if err != nil {
		return "", false
	}
	s := unsafe.String(unsafe.SliceData(data), len(data))
	rest, ok := strings.CutPrefix(s, bundleMagic)
	if !ok {
		return "", false
	}
	stored, rest, ok1 := strings.Cut(rest, "\n")
	sum, rest, ok2 := strings.Cut(rest, "\n")
	if !ok1 || !ok2 || stored != key || sum != checksum(rest) {
		return "", false
	}
	return rest, true
}

// Save stores snapshot under key, replacing what was stored. It is a
// cache: failures are ignored (the next bundle compiles again).
func (b *Bundle) Save(key, snapshot string) {
	if strings.Contains(key, "\n") {
		return
	}
	head := bundleMagic + key + "\n" + checksum(snapshot) + "\n"
	replace(b.Path, "bundle-snapshot-*.tmp", func(w *bufio.Writer) {
		w.WriteString(head)
		w.WriteString(snapshot)
	})
}

func checksum(s string) string {
	return fmt.Sprintf("%08x", crc32.Checksum(unsafe.Slice(unsafe.StringData(s), len(s)), crc32.MakeTable(crc32.Castagnoli)))
}
