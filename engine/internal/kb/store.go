package kb

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"sort"
	"time"

	"github.com/kontext/kontext/engine/internal/entry"
)

// Store keeps the compiled snapshot between processes: a native engine
// stores it under the git dir, so a new process reuses every parse whose
// file is unchanged. The engine only encodes and validates; the store
// moves bytes and knows the platform's file identity.
type Store interface {
	// LoadSnapshot returns the stored bytes, nil when there are none.
	LoadSnapshot() ([]byte, error)
	// SaveSnapshot replaces the stored bytes atomically (readers see the
	// old or the new bytes, never a mix).
	SaveSnapshot(data []byte) error
	// FileID is the file's identity beyond size and time (the inode on
	// Unix), 0 when unknown.
	FileID(fi os.FileInfo) uint64
	// Key names the program that reads and writes the snapshot (a rebuilt
	// binary may parse differently): a snapshot written under another key
	// is ignored and rebuilt.
	Key() string
}

// snapshotMagic starts every stored snapshot; snapshotVersion changes
// whenever the format or the parser's output changes, so a snapshot of
// another version is ignored (and rebuilt), never trusted.
const (
	snapshotMagic   = "KONTEXTSNAP\x00"
	snapshotVersion = 1
)

// SetStore makes the reader load its parse cache from s (once, before the
// first read) and save it back after a read that parsed anything. With a
// store the reader also applies git's racy rule: a file whose modification
// time is not older than the moment its parse was recorded is re-read and
// hashed before the parse is trusted.
func (r *Reader) SetStore(s Store) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.store = s
	r.persist = storePersist{}
	r.loaded = false
}

// persister loads and saves the parse cache. The reader calls it through
// this interface, and only SetStore installs it, so a program that never
// sets a store (the WASM engine) links none of the snapshot codec.
type persister interface {
	load(r *Reader)
	save(r *Reader)
}

// storePersist persists the parse cache through the reader's Store.
type storePersist struct{}

// srcKey names what a parse depends on besides the bytes: the source (kind,
// style, directory) and the symlink target the content came from.
func srcKey(src entry.Source, target string) string {
	return src.Kind + "\x00" + src.Style + "\x00" + src.Dir + "\x00" + target
}

// load fills the parse cache from the store. Anything wrong with the
// stored bytes (absent, truncated, corrupt, another version) leaves the
// cache empty: the read parses everything and the next save replaces it.
func (storePersist) load(r *Reader) {
	r.loaded = true
	data, err := r.store.LoadSnapshot()
	if err != nil || data == nil {
		return
	}
	files, err := decodeSnapshot(data, r.store.Key())
	if err != nil {
		r.dirty = true
		return
	}
	r.files = files
}

// save writes the parse cache to the store. stamp is the write time every
// stored file is measured against on the next load (git's racy rule).
func (storePersist) save(r *Reader) {
	data := encodeSnapshot(r.files, r.store.Key(), time.Now())
	if r.store.SaveSnapshot(data) == nil {
		r.dirty = false
	}
}

func encodeSnapshot(files map[string]*cached, key string, stamp time.Time) []byte {
	names := make([]string, 0, len(files))
	for f, c := range files {
		if c.size >= 0 {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	w := &entry.Encoder{Buf: make([]byte, 0, 64+len(names)*512)}
	w.Buf = append(w.Buf, snapshotMagic...)
	w.Uvarint(snapshotVersion)
	w.String(key)
	w.Varint(stamp.UnixNano())
	count := len(w.Buf)
	w.Buf = append(w.Buf, 0, 0, 0, 0) // the record count, patched below
	n := 0
	for _, f := range names {
		c := files[f]
		mark := len(w.Buf)
		w.String(f)
		w.String(c.key)
		w.Varint(c.size)
		w.Varint(c.mod.UnixNano())
		w.Uvarint(c.id)
		w.String(c.blob)
		w.Bool(c.entry != nil)
		if c.entry != nil {
			if entry.EncodeEntry(w, c.entry) != nil {
				w.Buf = w.Buf[:mark] // not storable: parsed again next time
				continue
			}
		}
		entry.EncodeDiagnostics(w, c.diags)
		n++
	}
	binary.LittleEndian.PutUint32(w.Buf[count:], uint32(n))
	return binary.LittleEndian.AppendUint32(w.Buf, crc32.ChecksumIEEE(w.Buf))
}

var errBadSnapshot = errors.New("stored snapshot is corrupt or of another version")

func decodeSnapshot(data []byte, key string) (map[string]*cached, error) {
	if len(data) < len(snapshotMagic)+8 || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return nil, errBadSnapshot
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errBadSnapshot
	}
	// One copy of the whole body: every decoded string is a slice of it.
	r := &entry.Decoder{Buf: string(body[len(snapshotMagic):])}
	if r.Uvarint() != snapshotVersion || r.String() != key {
		return nil, errBadSnapshot
	}
	stamp := time.Unix(0, r.Varint())
	if len(r.Buf) < 4 {
		return nil, errBadSnapshot
	}
	n := binary.LittleEndian.Uint32([]byte(r.Buf[:4]))
	r.Buf = r.Buf[4:]
	if uint64(n) > uint64(len(r.Buf)) {
		return nil, errBadSnapshot
	}
	racyFrom := stamp.Truncate(time.Second)
	files := make(map[string]*cached, n)
	for i := uint32(0); i < n; i++ {
		f := r.String()
		c := &cached{key: r.String(), size: r.Varint(), mod: time.Unix(0, r.Varint()), id: r.Uvarint(), blob: r.String()}
		if r.Bool() {
			c.entry = entry.DecodeEntry(r)
		}
		c.diags = entry.DecodeDiagnostics(r)
		if r.Err != nil {
			return nil, errBadSnapshot
		}
		c.racy = !c.mod.Before(racyFrom)
		files[f] = c
	}
	if len(r.Buf) != 0 {
		return nil, errBadSnapshot
	}
	return files, nil
}
