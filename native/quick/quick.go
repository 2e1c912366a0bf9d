// Package quick is the store and the first half of kontext's early
// answers: a `kontext governing` or `kontext api status` invocation
// answered while the program initialises, from the sidecar a full read
// left under the git dir, when nothing that read consumed has changed
// since. A whole
// kontext process spends more of a warm governing call initialising
// packages (the Markdown and YAML parsers, jq, the MCP SDK) than
// answering it (docs/architecture.md, "Whole-process floor").
//
// A governing sidecar (engine/sidecar) holds the entries' listing fields
// and the compiled match index; a status sidecar holds the bytes `api
// status` printed and the day they hold for. This package adds what tells
// either current: every
// path the read consumed (configuration, listed directories, entry files,
// ledger, overlay, the git HEAD and index) with its stat data (mode,
// size, modification and change times, inode, device), the writer's
// binary and environment fingerprint, and the worktree root.
//
// It imports only what package os does, so Go initialises it among the
// first packages. Its init takes the invocation apart and, when it is one
// the early answer takes, checks the recorded inputs: a status it answers
// there and exits; for governing it starts the check on another thread
// while the other packages initialise, and package quick/answer, which
// needs the match index, waits for that check, answers and exits. Any
// difference, a command line the full command would answer otherwise (a
// terminal, $COLUMNS, a flag, a path not in the plain form), or no entry
// governing any requested path, and the program starts as always; when
// the sidecar was the reason, Owed tells the full command to write a new
// one.
package quick

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"hash/fnv"
	"os"
	"os/signal"
	"path"
	"sort"
	"syscall"
	"time"
	"unsafe"
)

// Owed names the operation ("governing" or "status") of this invocation
// when it was one the early answer takes but its sidecar was missing or
// out of date: the full command then writes a new one (Write). It is ""
// otherwise.
var Owed string

// Operations with an early answer.
const (
	Governing = "governing"
	Status    = "status"
)

// Stat is one recorded input: a path (relative to the worktree root, or
// absolute for files of the git dir) and its stat data, or its absence.
type Stat struct {
	Path         string
	Absent       bool
	Mode         uint32
	Size         int64
	Mtime, Ctime int64 // nanoseconds
	Ino, Dev     uint64
}

// File is the sidecar as stored.
type File struct {
	Op          string   // Governing or Status
	Fingerprint string   // the writer's binary and environment (relay.Fingerprint)
	Root        string   // the worktree root
	Aliases     []string // other spellings of Root (its links resolved)
	Stats       []Stat
	Answer      string // sidecar.Answer, encoded (governing); StatusAnswer (status)
}

const magic = "kontext-quick-2\n"

var errCorrupt = errors.New("the quick sidecar is not one this build wrote whole")

// Path is where op's sidecar for fingerprint (relay.Fingerprint: the
// binary and the environment) lives in gitDir: one per binary and
// environment, as two kontext builds, or a shell and an agent hook with
// different variables, used in turn would otherwise rewrite each other's.
func Path(gitDir, op, fingerprint string) string {
	h := fnv.New64a()
	h.Write([]byte(fingerprint))
	const digits = "0123456789abcdef"
	var name [16]byte
	for i, v := 0, h.Sum64(); i < 16; i, v = i+1, v>>4 {
		name[15-i] = digits[v&15]
	}
	return path.Join(gitDir, "kontext", op+"-"+string(name[:]))
}

// Write stores f as gitDir's sidecar (a temporary file renamed over it)
// unless an input is racy: modified or changed no earlier than the second
// the read started (start), when a later change in that same second could
// keep its stat data. Such a sidecar is not written; the next call writes
// one. It reports whether it wrote.
func Write(gitDir string, f *File, start time.Time) (bool, error) {
	if Racy(f.Stats, start) {
		return false, nil
	}
	if f.Op != Governing && f.Op != Status {
		return false, errors.New("a quick sidecar names no operation")
	}
	p := Path(gitDir, f.Op, f.Fingerprint)
	if err := os.MkdirAll(path.Dir(p), 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(path.Dir(p), f.Op+"-*.tmp")
	if err != nil {
		return false, err
	}
	_, err = tmp.Write(f.Append(make([]byte, 0, len(f.Answer)+64*len(f.Stats)+1024)))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return false, err
	}
	prune(path.Dir(p), f.Op+"-", p)
	return true, nil
}

// Racy reports whether a sidecar of stats, read from start on, would not
// be written (see Write): an input modified or changed no earlier than
// the second the read started.
func Racy(stats []Stat, start time.Time) bool {
	settled := start.Truncate(time.Second).UnixNano()
	for _, s := range stats {
		if !s.Absent && (s.Mtime >= settled || s.Ctime >= settled) {
			return true
		}
	}
	return false
}

// keepSidecars is how many sidecars of one operation a git dir keeps (one
// per binary and environment; the most recently written stay).
const keepSidecars = 4

// prune removes all but the newest keepSidecars sidecars named prefix… of
// dir, never keep (the one just written).
func prune(dir, prefix, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type old struct {
		name string
		mod  time.Time
	}
	var olds []old
	for _, e := range entries {
		name := path.Join(dir, e.Name())
		if len(e.Name()) <= len(prefix) || e.Name()[:len(prefix)] != prefix || len(e.Name()) != len(prefix)+16 || name == keep {
			continue
		}
		if fi, err := e.Info(); err == nil {
			olds = append(olds, old{name, fi.ModTime()})
		}
	}
	sort.Slice(olds, func(i, j int) bool { return olds[i].mod.After(olds[j].mod) })
	for i := keepSidecars - 1; i < len(olds); i++ {
		os.Remove(olds[i].name)
	}
}

// Append appends f's encoding, checksummed: the header, the answer, then
// the stat records (which a reader checks as it decodes them).
func (f *File) Append(b []byte) []byte {
	start := len(b)
	b = append(b, magic...)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	str(f.Op)
	str(f.Fingerprint)
	str(f.Root)
	b = binary.AppendUvarint(b, uint64(len(f.Aliases)))
	for _, a := range f.Aliases {
		str(a)
	}
	str(string(f.Answer))
	b = binary.AppendUvarint(b, uint64(len(f.Stats)))
	for _, s := range f.Stats {
		str(s.Path)
		if s.Absent {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(s.Mode))
		b = binary.AppendUvarint(b, uint64(s.Size))
		b = binary.AppendUvarint(b, uint64(s.Mtime))
		b = binary.AppendUvarint(b, uint64(s.Ctime))
		b = binary.AppendUvarint(b, s.Ino)
		b = binary.AppendUvarint(b, s.Dev)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// StatusAnswer is a status sidecar's answer: the UTC day the output holds
// for (status.review_due compares the entries' review dates with it) and
// the bytes `api status` printed.
func StatusAnswer(day, output string) string {
	b := binary.AppendUvarint(nil, uint64(len(day)))
	return string(append(b, day...)) + output
}

func splitStatus(a string) (day, output string, ok bool) {
	d := decoder{b: unsafe.Slice(unsafe.StringData(a), len(a))}
	day = d.str()
	if d.bad {
		return "", "", false
	}
	return day, a[len(a)-len(d.b):], true
}

// Print writes an early answer to stdout and returns the exit code as the
// full command does: a reader that went away (| head) ends quietly with
// 0; any other failure (disk full) exits 1 with one line naming the
// stream, how much got through and, when the full command knows (lines:
// the answer's line count, 0 for a table it streams), how much was lost.
func Print(s string, lines int) int {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) // EPIPE instead of a kill, as in main
	n, err := os.Stdout.WriteString(s)
	if err == nil {
		return 0
	}
	if pe, ok := err.(*os.PathError); ok && pe.Err == syscall.EPIPE {
		return 0
	}
	written := 0
	for i := range n {
		if s[i] == '\n' {
			written++
		}
	}
	lost := "the rest"
	if lines > written {
		lost = itoa(lines - written)
	}
	os.Stderr.WriteString("kontext: writing the output failed: stdout: " + itoa(written) + " lines written, " + lost + " lost: " + err.Error() + "\n")
	return 1
}

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			return string(b[i:])
		}
	}
}

// opened is a stored sidecar checked whole, its stat records still
// encoded.
type opened struct {
	File
	stats []byte
	count uint64
}

// open checks data's checksum and decodes its header; the strings share
// data's memory (mapped read-only, never written).
func open(data []byte) (*opened, error) {
	if len(data) < len(magic)+4 || string(data[:len(magic)]) != magic {
		return nil, errCorrupt
	}
	body := data[:len(data)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, errCorrupt
	}
	d := decoder{b: body[len(magic):]}
	o := &opened{}
	o.Op = d.str()
	o.Fingerprint, o.Root = d.str(), d.str()
	n := d.num()
	if n > uint64(len(d.b)) {
		return nil, errCorrupt
	}
	for range n {
		o.Aliases = append(o.Aliases, d.str())
	}
	o.Answer = d.str()
	o.count = d.num()
	if d.bad || o.count > uint64(len(d.b)) {
		return nil, errCorrupt
	}
	o.stats = d.b
	return o, nil
}

// next decodes the next stat record of d; ok is false at a bad record.
func (d *decoder) next() (s Stat, ok bool) {
	s.Path = d.str()
	switch d.byte() {
	case 0:
		s.Absent = true
	case 1:
		s.Mode, s.Size = uint32(d.num()), int64(d.num())
		s.Mtime, s.Ctime = int64(d.num()), int64(d.num())
		s.Ino, s.Dev = d.num(), d.num()
	default:
		d.bad = true
	}
	return s, !d.bad
}

// Decode reads what Append wrote whole.
func Decode(data []byte) (*File, error) {
	o, err := open(data)
	if err != nil {
		return nil, err
	}
	d := decoder{b: o.stats}
	for range o.count {
		s, ok := d.next()
		if !ok {
			return nil, errCorrupt
		}
		o.Stats = append(o.Stats, s)
	}
	if len(d.b) != 0 {
		return nil, errCorrupt
	}
	return &o.File, nil
}

type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) num() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.bad = true
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// str is the next string, sharing the decoder's memory (see open).
func (d *decoder) str() string {
	n := d.num()
	if n > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return ""
	}
	s := unsafe.String(unsafe.SliceData(d.b), int(n))
	d.b = d.b[n:]
	return s
}
