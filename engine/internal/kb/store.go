package kb

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/kontext/kontext/engine/internal/config"
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
	// FileID is the file's identity beyond size and modification time (on
	// Unix the inode and the change time, as git's index compares them),
	// 0 when unknown.
	FileID(fi os.FileInfo) uint64
	// Key names the program that reads and writes the snapshot (a rebuilt
	// binary may parse differently): a snapshot written under another key
	// is ignored and rebuilt.
	Key() string
}

// PortableStore is a Store whose snapshot travels with its files (a
// bundle's): the file times and identities it recorded mean nothing where
// it is read, so each stored parse is trusted only once the file's content
// has the recorded checksum, and then the file's own stat data are
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
	snapshotVersion = 11
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
	r.clean = clean
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
// whose content has the checksum it was parsed from (so a seed from
// another file set never changes an answer), and a seeded file that is not
// read here is dropped, never stored.
func (r *Reader) Seed(from *Reader) {
	from.mu.Lock()
	from.ensureFiles() // a warm native reader holds them in its stored rows
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
	r.clean = clean
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
//
// The records stay in the stored table until a read needs them
// (ensureFiles): a native warm read validates the table in place.
func (readPersist) load(r *Reader) {
	r.loaded = true
	data, err := r.store.LoadSnapshot()
	if err != nil || data == nil {
		return
	}
	t, err := decodeSnapshot(data, r.store.Key())
	if err != nil {
		r.dirty = true
		return
	}
	r.tab, r.files, r.recs, r.compiled = t, nil, nil, t.compiled
	r.decoded = t.decoded
}

// decoded is what a stored snapshot keeps of the TOML texts its read was
// made with — the configuration and the path overlay — decoded, as JSON
// data: a later read of the same texts takes them from here and parses no
// TOML, so no engine needs a TOML parser to read a snapshot. Each is used
// only for the very text (and file) it was decoded from.
type decoded struct {
	cfgText, cfg string // the configuration's text and config.Config as JSON
	ovText, ov   string // the overlay's text and overlayData as JSON
}

// overlayData is a parsed overlay as a snapshot stores it.
type overlayData struct {
	File        string             `json:"file"`
	Overlay     *Overlay           `json:"overlay"`
	Diagnostics []entry.Diagnostic `json:"diagnostics"`
}

// decodedOf is what a snapshot stores of s's TOML texts: name, text and
// JSON in turn ("config" and "overlay").
func decodedOf(s *Snapshot) []string {
	var out []string
	if s.ConfigText != nil && s.Config != nil {
		if b, err := json.Marshal(s.Config); err == nil {
			out = append(out, "config", string(s.ConfigText), string(b))
		}
	}
	if s.Overlay != nil && s.Config != nil {
		file := s.Config.Overlay()
		ov, diags := ParseOverlay(file, s.Overlay)
		if b, err := json.Marshal(overlayData{File: file, Overlay: ov, Diagnostics: diags}); err == nil {
			out = append(out, "overlay", string(s.Overlay), string(b))
		}
	}
	return out
}

// decodedFrom reads decodedOf's list back; nil when it holds nothing.
func decodedFrom(list []string) (*decoded, bool) {
	if len(list)%3 != 0 {
		return nil, false
	}
	if len(list) == 0 {
		return nil, true
	}
	d := &decoded{}
	for i := 0; i < len(list); i += 3 {
		switch list[i] {
		case "config":
			d.cfgText, d.cfg = list[i+1], list[i+2]
		case "overlay":
			d.ovText, d.ov = list[i+1], list[i+2]
		default:
			return nil, false
		}
	}
	return d, true
}

// config is the stored configuration of file when its text is text, nil
// when none is stored for them.
func (d *decoded) config(file string, text []byte) *config.Config {
	if d == nil || d.cfg == "" || d.cfgText != string(text) {
		return nil
	}
	var c config.Config
	if json.Unmarshal([]byte(d.cfg), &c) != nil || c.Path != file {
		return nil
	}
	return &c
}

// overlay is the stored parse of the overlay file when its text is text;
// ok is false when none is stored for them.
func (d *decoded) overlay(file string, text []byte) (_ *Overlay, _ []entry.Diagnostic, ok bool) {
	if d == nil || d.ov == "" || d.ovText != string(text) {
		return nil, nil, false
	}
	var od overlayData
	if json.Unmarshal([]byte(d.ov), &od) != nil || od.File != file {
		return nil, nil, false
	}
	return od.Overlay, od.Diagnostics, true
}

// save writes the parse cache and the compiled form of s (the read that
// triggered the save) to the store. The write time is the stamp every
// stored file is measured against on the next load (git's racy rule).
func (storePersist) save(r *Reader, s *Snapshot) {
	if p, ok := r.store.(PortableStore); ok && !p.SaveBack() {
		r.dirty = false
		return
	}
	r.ensureFiles()
	stamp := time.Now()
	_, portable := r.store.(PortableStore)
	if portable {
		// Times and identities mean nothing elsewhere (the reader checks
		// content): left out, so equal files give equal bytes.
		stamp = time.Time{}
	}
	head, parses := encodeSnapshot(r.files, s, r.store.Key(), stamp, portable)
	var err error
	if ps, ok := r.store.(partsStore); ok {
		err = ps.SaveSnapshotParts(head, parses)
	} else {
		err = r.store.SaveSnapshot(joinSnapshot(head, parses))
	}
	if err == nil {
		r.dirty = false
	}
}

// partsStore is a Store that writes a snapshot given as its head and the
// parses that follow it (the snapshot is their concatenation), so the
// parses, megabytes at 10,000 entries and already in memory, are not
// copied into one fresh buffer first.
type partsStore interface {
	SaveSnapshotParts(head []byte, parses []string) error
}

// joinSnapshot is the snapshot of head and its parses as one buffer.
func joinSnapshot(head []byte, parses []string) []byte {
	n := len(head)
	for _, p := range parses {
		n += len(p)
	}
	out := append(make([]byte, 0, n), head...)
	for _, p := range parses {
		out = append(out, p...)
	}
	return out
}

// A stored parse starts with its mode: no entry, an entry, or (portable
// snapshots, which travel with the files) an entry stored without the
// file's text — Markdown is the file's content, which the reader has read
// to check the blob id anyway, and with parseTextBody its Body is the
// span of that content the stored lengths give (what follows the body,
// the body's length: a body is the file's text trimmed). A bundle so
// carries each file's text once, not three times.
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
		if i := strings.LastIndex(e.Markdown, e.Body); i >= 0 {
			w.Buf = append(w.Buf, parseTextBody)
			w.Uvarint(uint64(len(e.Markdown) - i - len(e.Body)))
			w.Uvarint(uint64(len(e.Body)))
			cp.Body = ""
		} else {
			w.Buf = append(w.Buf, parseText)
		}
		e = &cp
		w.Text = c.entry.Markdown // the fields that are spans of the file, as spans
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
	r.Text = ""
	mode, _ := r.Byte()
	tail, body := uint64(0), uint64(0)
	switch mode {
	case parseNone:
		return false, r.Err == nil
	case parseTextBody:
		tail, body = r.Uvarint(), r.Uvarint()
	case parseEntry, parseText:
	default:
		return false, false
	}
	if mode >= parseText {
		if text == "" || tail > uint64(len(text)) || body > uint64(len(text))-tail {
			return false, false
		}
		r.Text = text // its strings and the diagnostics after it: spans of the text
	}
	if !entry.DecodeEntryInto(r, e) {
		return false, false
	}
	if mode >= parseText {
		e.Markdown = text
		if mode == parseTextBody {
			end := uint64(len(text)) - tail
			e.Body = text[end-body : end]
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
	if !c.intact() {
		return false
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
	c.entry, c.diags, c.kept, c.raw, c.text = e, diags, c.raw, "", ""
	return true
}

// A stored snapshot keeps what validates a file apart from its parse: the
// rows, one per file in path order (path, source key by number, stat data,
// blob id, content checksum, the parse's length and CRC), then the compiled part, a CRC of
// all that, and only then the parses, back to back. A warm call so reads
// the rows (small, fixed fields per file), never a parse it does not decode.

// intact reports whether the stored parse still has its stored CRC.
func (c *cached) intact() bool {
	return crc32.ChecksumIEEE(unsafe.Slice(unsafe.StringData(c.raw), len(c.raw))) == c.sum
}

// encodeSnapshot encodes files (the parse cache) and the compiled form of
// s: the snapshot is head followed by the parses (joinSnapshot).
func encodeSnapshot(files map[string]*cached, s *Snapshot, key string, stamp time.Time, portable bool) (head []byte, parses []string) {
	names := make([]string, 0, len(files))
	for f, c := range files {
		if c.size >= 0 {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	// The parses first (a missing one is encoded now): the rows give
	// their lengths.
	parses = make([]string, len(names))
	sums := make([]uint32, len(names))
	keys := map[string]uint64{} // each source key is stored once
	var keyList []string
	n, plen, rowsCap := 0, 0, 0
	for i, f := range names {
		c := files[f]
		parse, sum := c.raw, c.sum // a stored parse keeps its stored CRC: a corrupt one stays detectable
		if parse == "" {
			parse = c.kept // decoded, so intact
		}
		if portable && parse != "" && parse[0] == parseEntry && c.decode() {
			parse = "" // a seed's parse: stored again without the file's text
		}
		if len(c.blob) == 20 { // a 20-byte id is the stored form of a 40-digit one
			names[i] = ""
			continue
		}
		if parse == "" {
			var ok bool
			if parse, ok = encodeParse(c, portable); !ok {
				names[i] = "" // not storable: parsed again next time
				continue
			}
			sum = crc32.ChecksumIEEE(unsafe.Slice(unsafe.StringData(parse), len(parse)))
		}
		if _, ok := keys[c.key]; !ok {
			keys[c.key] = uint64(len(keyList))
			keyList = append(keyList, c.key)
		}
		parses[i], sums[i] = parse, sum
		n++
		plen += len(parse)
		rowsCap += len(f) + len(c.blob) + 48 // the numbers take at most 45 bytes
	}
	// The compiled snapshot, only when every file was stored: it stands
	// for exactly the rows.
	compiled := ""
	if s != nil && n == len(names) && len(names) == len(files) {
		compiled = encodeCompiled(s, files, names)
	}
	var data []string
	if s != nil {
		data = decodedOf(s)
	}
	tlen := 0
	for _, t := range data {
		tlen += 8 + len(t)
	}
	w := &entry.Encoder{Buf: make([]byte, 0, 256+len(key)+len(keyList)*64+rowsCap+len(compiled)+tlen)}
	w.Buf = append(w.Buf, snapshotMagic...)
	w.Uvarint(snapshotVersion)
	w.String(key)
	if stamp.IsZero() {
		w.Varint(0)
	} else {
		w.Varint(stamp.UnixNano())
	}
	w.Uvarint(uint64(n))
	w.Uvarint(uint64(plen))
	w.Strings(keyList)
	// The rows go straight into the buffer, their length (u32) patched.
	at := len(w.Buf)
	w.Buf = append(w.Buf, 0, 0, 0, 0)
	for i, f := range names {
		if f == "" {
			continue
		}
		c := files[f]
		mod, id := c.mod.UnixNano(), c.id
		if portable {
			mod, id = 0, 0
		}
		w.String(f)
		w.Uvarint(keys[c.key])
		w.Varint(c.size)
		w.Varint(mod)
		w.Uvarint(id)
		w.String(blobBytes(c.blob))
		w.Uvarint(c.check)
		w.Uvarint(uint64(len(parses[i])))
		w.Buf = binary.LittleEndian.AppendUint32(w.Buf, sums[i])
	}
	binary.LittleEndian.PutUint32(w.Buf[at:], uint32(len(w.Buf)-at-4))
	w.String(compiled)
	w.Strings(data)
	w.Buf = binary.LittleEndian.AppendUint32(w.Buf, crc32.ChecksumIEEE(w.Buf))
	return w.Buf, parses // a row not stored has no parse: ""
}

var errBadSnapshot = errors.New("stored snapshot is corrupt or of another version")

// SnapshotReadable reports whether data is a snapshot this build reads
// with key: its format, key and header CRC (what a load checks before it
// trusts any part of it).
func SnapshotReadable(data []byte, key string) bool {
	_, err := decodeSnapshot(data, key)
	return err == nil
}

// table is a stored snapshot's rows and parses, read in place, and its
// compiled part, still encoded.
type table struct {
	rows, parses, compiled string
	keys                   []string
	data                   []string // decodedOf's list, as stored
	decoded                *decoded // the configuration and overlay as data
	n                      int
	racyFrom               int64 // a file modified at or after this (Unix ns) is racy
	// Where each row and its parse start: built at first use by a native
	// read that looks rows up (index).
	once       sync.Once
	at, parsAt []uint32
}

// next decodes the row at d into c (all but its parse and blob id) and
// returns the file's path ("" when the row does not decode), its blob id
// as stored (blobText gives the id) and its parse's length. The warm walk
// (clean) needs no blob id, so it builds none.
func (t *table) next(d *entry.Decoder, c *cached) (string, string, int) {
	path := d.String()
	k := d.Uvarint()
	size, mod, id, blob, check, plen := d.Varint(), d.Varint(), d.Uvarint(), d.String(), d.Uvarint(), int(d.Uvarint())
	if d.Err != nil || len(d.Buf) < 4 || k >= uint64(len(t.keys)) || plen <= 0 {
		return "", "", 0
	}
	*c = cached{key: t.keys[k], size: size, mod: time.Unix(0, mod), id: id, racy: mod >= t.racyFrom, check: check,
		sum: uint32(d.Buf[0]) | uint32(d.Buf[1])<<8 | uint32(d.Buf[2])<<16 | uint32(d.Buf[3])<<24}
	d.Buf = d.Buf[4:]
	return path, blob, plen
}

// A row stores a blob id (40 hex digits, BlobID) as its 20 bytes; any
// other id (none: "") as it is.
func blobBytes(id string) string {
	if len(id) == 40 {
		if b, err := hex.DecodeString(id); err == nil && hex.EncodeToString(b) == id {
			return string(b)
		}
	}
	return id
}

// blobText is the blob id a row stores as stored; into, when long enough,
// is where its digits go (one allocation for many rows). Not inlined: the
// hex loop would charge materialize's size per byte (docs/architecture.md,
// "V8's tiers").
//
//go:noinline
func blobText(stored string, into []byte) string {
	if len(stored) != 20 {
		return stored
	}
	if len(into) < 40 {
		into = make([]byte, 40)
	}
	hex.Encode(into, []byte(stored))
	return unsafe.String(unsafe.SliceData(into), 40)
}

// materialize is the parse cache the rows hold: a record per row, in one
// allocation, and the rows in order (the compiled part refers to them by
// position); nil when a row does not decode. Each parse's CRC is checked
// when it is decoded (cached.decode, lazy.rec), not here: a read from the
// compiled part decodes only the entries its answer needs.
func (t *table) materialize(portable bool) (map[string]*cached, []*cached) {
	files := make(map[string]*cached, t.n)
	order := make([]*cached, t.n)
	recs := make([]cached, t.n)
	digits := make([]byte, 40*t.n) // every blob id's text, in one allocation
	d := &entry.Decoder{Buf: t.rows}
	off := 0
	for i := range recs {
		c := &recs[i]
		f, blob, plen := t.next(d, c)
		if f == "" || off+plen > len(t.parses) {
			return nil, nil
		}
		c.blob = blobText(blob, digits[40*i:40*i+40])
		c.raw, c.portable, c.racy = t.parses[off:off+plen], portable, c.racy || portable
		off += plen
		order[i], files[f] = c, c
	}
	if len(d.Buf) != 0 || off != len(t.parses) {
		return nil, nil
	}
	return files, order
}

// decodeSnapshot checks data's header, keys, rows and compiled part
// against their CRC; the rows are decoded when a read walks them, each
// parse when it is decoded (its own CRC).
func decodeSnapshot(data []byte, key string) (*table, error) {
	if len(data) < len(snapshotMagic)+8 || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return nil, errBadSnapshot
	}
	// No copy: every decoded string is a slice of the loaded bytes, which
	// the store hands over (LoadSnapshot) and nothing changes afterwards.
	all := unsafe.String(unsafe.SliceData(data), len(data))
	r := &entry.Decoder{Buf: all[len(snapshotMagic):]}
	if r.Uvarint() != snapshotVersion || r.String() != key {
		return nil, errBadSnapshot
	}
	stamp := time.Unix(0, r.Varint())
	n, plen := r.Uvarint(), r.Uvarint()
	t := &table{keys: r.Strings(), racyFrom: stamp.Truncate(time.Second).UnixNano()}
	if len(r.Buf) < 4 {
		return nil, errBadSnapshot
	}
	rows := int(binary.LittleEndian.Uint32([]byte(r.Buf[:4])))
	if rows > len(r.Buf)-4 {
		return nil, errBadSnapshot
	}
	t.rows, r.Buf = r.Buf[4:4+rows], r.Buf[4+rows:]
	t.compiled = r.String()
	var ok bool
	t.data = r.Strings()
	if t.decoded, ok = decodedFrom(t.data); !ok {
		return nil, errBadSnapshot
	}
	if r.Err != nil || len(r.Buf) < 4 || n > uint64(len(t.rows)) || uint64(len(r.Buf)-4) != plen {
		return nil, errBadSnapshot
	}
	head := len(data) - len(r.Buf)
	if crc32.ChecksumIEEE(data[:head]) != binary.LittleEndian.Uint32(data[head:]) {
		return nil, errBadSnapshot
	}
	t.n, t.parses = int(n), all[head+4:]
	return t, nil
}
