package kb

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"slices"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/kontext/kontext/engine/internal/entry"
)

// Store keeps the compiled snapshot between processes: a native engine
// stores it under the git dir, so a new process reuses every parse whose
// file is unchanged. The engine only encodes and validates; the store
// moves bytes and knows the platform's file identity.
type Store interface {
	// LoadSnapshot returns the stored bytes, nil when there are none. The
	// reader keeps them (its strings point into them): the store must not
	// reuse or change them afterwards.
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

// PortableStore is a Store whose snapshot travels with its files (a
// bundle's): the file times and identities it recorded mean nothing where
// it is read, so each stored parse is trusted only once the file's content
// hashes to the recorded blob id, and then the file's own stat data are
// recorded. SaveBack reports whether the reader saves its snapshot back
// at all (a reader that only answers does not).
type PortableStore interface {
	Store
	SaveBack() bool
}

// snapshotMagic starts every stored snapshot; snapshotVersion changes
// whenever the format or the parser's output changes, so a snapshot of
// another version is ignored (and rebuilt), never trusted.
const (
	snapshotMagic   = "KONTEXTSNAP\x00"
	snapshotVersion = 3
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
	save(r *Reader, s *Snapshot)
	fast(r *Reader, inputs string) *Snapshot
}

// storePersist persists the parse cache through the reader's Store.
type storePersist struct{ readPersist }

// readPersist loads a stored snapshot and never saves one: the persister
// of a reader that only answers (SetReadOnlyStore), so a program that
// only reads snapshots (the WASM engine) links none of the encoders.
type readPersist struct{}

func (readPersist) save(r *Reader, _ *Snapshot) { r.dirty = false }

// Seed gives the reader, before its first read, the parses another
// reader holds, as a PortableStore would: each is used only for a file
// whose content hashes to the blob id it was parsed from (so a seed from
// another file set never changes an answer), and a seeded file that is not
// read here is dropped, never stored.
func (r *Reader) Seed(from *Reader) {
	from.mu.Lock()
	seeds := make(map[string]*cached, len(from.files))
	for f, c := range from.files {
		if c.size >= 0 && c.blob != "" {
			cp := *c
			cp.portable, cp.racy, cp.id = true, true, 0
			seeds[f] = &cp
		}
	}
	from.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files = seeds
}

// SetReadOnlyStore is SetStore for a reader that never saves: it answers
// from s's snapshot where the files are the ones it was built from.
func (r *Reader) SetReadOnlyStore(s Store) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.store = s
	r.persist = readPersist{}
	r.loaded = false
}

// srcKey names what a parse depends on besides the bytes: the source (kind,
// style, directory) and the symlink target the content came from.
func srcKey(src entry.Source, target string) string {
	return src.Kind + "\x00" + src.Style + "\x00" + src.Dir + "\x00" + target
}

// load fills the parse cache from the store. Anything wrong with the
// stored bytes (absent, truncated, corrupt, another version) leaves the
// cache empty: the read parses everything and the next save replaces it.
// The parses themselves stay encoded until a read needs them.
func (readPersist) load(r *Reader) {
	r.loaded = true
	data, err := r.store.LoadSnapshot()
	if err != nil || data == nil {
		return
	}
	st, err := decodeSnapshot(data, r.store.Key())
	if err != nil {
		r.dirty = true
		return
	}
	if _, portable := r.store.(PortableStore); portable {
		for _, c := range st.files {
			c.portable, c.racy = true, true
		}
	}
	r.files, r.compiled, r.recs = st.files, st.compiled, st.recs
}

// save writes the parse cache and the compiled form of s (the read that
// triggered the save) to the store. The write time is the stamp every
// stored file is measured against on the next load (git's racy rule).
func (storePersist) save(r *Reader, s *Snapshot) {
	if p, ok := r.store.(PortableStore); ok && !p.SaveBack() {
		r.dirty = false
		return
	}
	stamp := time.Now()
	_, portable := r.store.(PortableStore)
	if portable {
		// Times and identities mean nothing elsewhere (the reader checks
		// content): left out, so equal files give equal bytes.
		stamp = time.Time{}
	}
	data := encodeSnapshot(r.files, s, r.store.Key(), stamp, portable)
	if r.store.SaveSnapshot(data) == nil {
		r.dirty = false
	}
}

// fast answers a read from the stored compiled snapshot when it was built
// from exactly these inputs; nil when it was not (or does not decode).
// Every entry is decoded (and so checked); storePersist.fast decodes them
// when asked for instead.
func (readPersist) fast(r *Reader, inputs string) *Snapshot {
	if r.compiled == "" {
		return nil
	}
	s, p, err := decodeCompiled(r.compiled, inputs)
	if err == nil && decodeAll(s, p, r.recs) {
		return s
	}
	r.compiled = ""
	return nil
}

// A stored parse starts with its mode: no entry, an entry, or (portable
// snapshots, which travel with the files) an entry stored without the
// file's text — Markdown is the file's content, which the reader has read
// to check the blob id anyway, and with parseTextBody its Body is that
// content's tail of the stored length. A bundle so carries each file's
// text once, not three times.
const (
	parseNone     = 0
	parseEntry    = 1
	parseText     = 2
	parseTextBody = 3
)

// encodeParse is one file's parse as stored: its mode, the entry, its
// diagnostics. ok is false when the entry holds a value the codec cannot
// store.
func encodeParse(c *cached, portable bool) (string, bool) {
	w := &entry.Encoder{Buf: make([]byte, 0, 512)}
	e := c.entry
	switch {
	case e == nil:
		w.Buf = append(w.Buf, parseNone)
	case portable && e.Markdown != "" && BlobID([]byte(e.Markdown)) == c.blob:
		cp := *e
		cp.Markdown = ""
		if strings.HasSuffix(e.Markdown, e.Body) {
			w.Buf = append(w.Buf, parseTextBody)
			w.Uvarint(uint64(len(e.Body)))
			cp.Body = ""
		} else {
			w.Buf = append(w.Buf, parseText)
		}
		e = &cp
	default:
		w.Buf = append(w.Buf, parseEntry)
		w.Buf = slices.Grow(w.Buf, 256+len(e.Markdown)*2)
	}
	if e != nil && entry.EncodeEntry(w, e) != nil {
		return "", false
	}
	entry.EncodeDiagnostics(w, c.diags)
	return string(w.Buf), true
}

// decodeParse reads a stored parse's mode and entry into e; has is false
// for a file without an entry, ok false when it does not decode (or its
// text, needed and not kept, is missing).
func decodeParse(r *entry.Decoder, e *entry.Entry, text string) (has, ok bool) {
	mode, _ := r.Byte()
	body := uint64(0)
	switch mode {
	case parseNone:
		return false, r.Err == nil
	case parseTextBody:
		body = r.Uvarint()
	case parseEntry, parseText:
	default:
		return false, false
	}
	if !entry.DecodeEntryInto(r, e) {
		return false, false
	}
	if mode >= parseText {
		if text == "" || body > uint64(len(text)) {
			return false, false
		}
		e.Markdown = text
		if mode == parseTextBody {
			e.Body = text[uint64(len(text))-body:]
		}
	}
	return true, r.Err == nil
}

// decode fills c.entry and c.diags from the stored parse; false when it
// does not decode (the file is then parsed again).
func (c *cached) decode() bool {
	if c.raw == "" {
		return true
	}
	r := &entry.Decoder{Buf: c.raw}
	e := &entry.Entry{}
	has, ok := decodeParse(r, e, c.text)
	if !ok {
		return false
	}
	if !has {
		e = nil
	}
	diags := entry.DecodeDiagnostics(r)
	if r.Err != nil || len(r.Buf) != 0 {
		return false
	}
	c.entry, c.diags, c.raw, c.text = e, diags, "", ""
	return true
}

func encodeSnapshot(files map[string]*cached, s *Snapshot, key string, stamp time.Time, portable bool) []byte {
	names := make([]string, 0, len(files))
	for f, c := range files {
		if c.size >= 0 {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	w := &entry.Encoder{Buf: make([]byte, 0, 64+len(names)*1024)}
	w.Buf = append(w.Buf, snapshotMagic...)
	w.Uvarint(snapshotVersion)
	w.String(key)
	if stamp.IsZero() {
		w.Varint(0)
	} else {
		w.Varint(stamp.UnixNano())
	}
	count := len(w.Buf)
	w.Buf = append(w.Buf, 0, 0, 0, 0) // the record count, patched below
	n := 0
	for _, f := range names {
		c := files[f]
		parse := c.raw
		if portable && parse != "" && parse[0] == parseEntry && c.decode() {
			parse = "" // a seed's parse: stored again without the file's text
		}
		if parse == "" {
			var ok bool
			if parse, ok = encodeParse(c, portable); !ok {
				continue // not storable: parsed again next time
			}
		}
		mod, id := c.mod.UnixNano(), c.id
		if portable {
			mod, id = 0, 0
		}
		w.String(f)
		w.String(c.key)
		w.Varint(c.size)
		w.Varint(mod)
		w.Uvarint(id)
		w.String(c.blob)
		w.String(parse)
		n++
	}
	binary.LittleEndian.PutUint32(w.Buf[count:], uint32(n))
	// The compiled snapshot, only when every file was stored: it stands
	// for exactly the records above.
	compiled := ""
	if s != nil && n == len(names) && len(names) == len(files) {
		compiled = encodeCompiled(s, files, names)
	}
	w.String(compiled)
	return binary.LittleEndian.AppendUint32(w.Buf, crc32.ChecksumIEEE(w.Buf))
}

var errBadSnapshot = errors.New("stored snapshot is corrupt or of another version")

// stored is a decoded snapshot file: the per-file records (their parses
// still encoded) and the compiled snapshot, still encoded.
type stored struct {
	files    map[string]*cached
	recs     []*cached // the records in file order (the compiled part refers to them by position)
	compiled string
}

func decodeSnapshot(data []byte, key string) (stored, error) {
	if len(data) < len(snapshotMagic)+8 || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return stored{}, errBadSnapshot
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return stored{}, errBadSnapshot
	}
	// No copy: every decoded string is a slice of the loaded bytes, which
	// the store hands over (LoadSnapshot) and nothing changes afterwards.
	rest := body[len(snapshotMagic):]
	r := &entry.Decoder{Buf: unsafe.String(unsafe.SliceData(rest), len(rest))}
	if r.Uvarint() != snapshotVersion || r.String() != key {
		return stored{}, errBadSnapshot
	}
	stamp := time.Unix(0, r.Varint())
	if len(r.Buf) < 4 {
		return stored{}, errBadSnapshot
	}
	n := binary.LittleEndian.Uint32([]byte(r.Buf[:4]))
	r.Buf = r.Buf[4:]
	if uint64(n) > uint64(len(r.Buf)) {
		return stored{}, errBadSnapshot
	}
	racyFrom := stamp.Truncate(time.Second)
	files := make(map[string]*cached, n)
	order := make([]*cached, n)
	recs := make([]cached, n) // one allocation for every record
	for i := uint32(0); i < n; i++ {
		f := r.String()
		c := &recs[i]
		*c = cached{key: r.String(), size: r.Varint(), mod: time.Unix(0, r.Varint()), id: r.Uvarint(), blob: r.String(), raw: r.String()}
		if r.Err != nil || c.raw == "" {
			return stored{}, errBadSnapshot
		}
		c.racy = !c.mod.Before(racyFrom)
		files[f] = c
		order[i] = c
	}
	compiled := r.String()
	if r.Err != nil || len(r.Buf) != 0 {
		return stored{}, errBadSnapshot
	}
	return stored{files: files, recs: order, compiled: compiled}, nil
}
