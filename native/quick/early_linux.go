//go:build linux && (amd64 || arm64)

package quick

import (
	"os"
	"path"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/kontext/kontext/native/relay"
)

// Invocation is a command line the early answer takes.
type Invocation struct {
	Op    string   // Governing or Status
	Dir   string   // absolute: -C, else the working directory
	Paths []string // as given (governing)
}

// Sidecar is a stored sidecar whose header matched this process.
type Sidecar struct {
	Root    string
	Aliases []string
	Answer  string // sidecar.Answer, encoded
}

var (
	pending *Invocation
	found   *Sidecar
	checked *checkRun // whether the recorded inputs are all unchanged
)

func init() {
	inv, ok := invocation(os.Args[1:])
	if !ok {
		return
	}
	pending = inv
	top, gitDir := relay.FindRepo(inv.Dir)
	if gitDir == "" {
		pending = nil
		return
	}
	f, ok := load(gitDir, inv.Op, top)
	if !ok {
		Owed = inv.Op
		return
	}
	if inv.Op == Status {
		if out, ok := statusAnswer(f); ok {
			os.Exit(Print(out, 1)) // the envelope: one line
		}
		Owed = inv.Op
		return
	}
	found = &Sidecar{Root: f.Root, Aliases: f.Aliases, Answer: f.Answer}
	checked = startCheck(f) // while the other packages initialise
}

// Found returns this process's invocation and the sidecar to answer it
// from, nil when there is none; the answer may be prepared from it at
// once, and printed only once Unchanged says its inputs are unchanged.
func Found() (*Invocation, *Sidecar) {
	return pending, found
}

// Unchanged reports whether every input the sidecar Found returned
// recorded is unchanged, taking part in the check until it is done;
// false (Owed then set) when one changed or there is no sidecar.
func Unchanged() bool {
	if pending == nil || found == nil {
		return false
	}
	if !checked.result() {
		Owed = pending.Op
		return false
	}
	return true
}

// Spoiled tells the full command to write a new sidecar for this
// invocation: the early answer found the one it read unusable.
func Spoiled() {
	if pending != nil {
		Owed = pending.Op
	}
}

// statusAnswer is the output of f, a status sidecar, when it holds for
// today and every recorded input is unchanged.
func statusAnswer(f *opened) (string, bool) {
	day, out, ok := splitStatus(f.Answer)
	if !ok || day != today() {
		return "", false
	}
	return out, unchanged(f)
}

// today is the UTC day of the engine's clock: KONTEXT_NOW (RFC 3339),
// as the native opener reads it, else the time now.
func today() string {
	now := time.Now()
	if v := os.Getenv("KONTEXT_NOW"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return "" // the full command says what is wrong with it
		}
		now = t
	}
	return now.UTC().Format("2006-01-02")
}

// invocation is the command line when it is a plain `governing <path>…`
// that the full command would print as plain text (stdout no terminal,
// no $COLUMNS, no forced colour) or `api status` with no input but {},
// with no flag besides one -C; ok false for any other.
func invocation(args []string) (*Invocation, bool) {
	if os.Getenv("KONTEXT_QUICK") == "off" || os.Getenv("KONTEXT_DAEMON") == "auto" {
		return nil, false // auto starts a daemon after the read
	}
	dir, command, dirs := ".", "", 0
	var paths []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C":
			if i+1 >= len(args) {
				return nil, false
			}
			i++
			dir, dirs = args[i], dirs+1
		case hasPrefix(a, "-C="):
			dir, dirs = a[3:], dirs+1
		case hasPrefix(a, "-C") && command == "":
			dir, dirs = a[2:], dirs+1
		case a == "" || a[0] == '-':
			return nil, false
		case command == "":
			command = a
		default:
			paths = append(paths, a)
		}
	}
	if dirs > 1 || dir == "" {
		return nil, false
	}
	switch {
	case command == "api" && len(paths) >= 1 && len(paths) <= 2 && paths[0] == Status && (len(paths) == 1 || paths[1] == "{}"):
		command, paths = Status, nil // JSON: the same bytes on a terminal
	case command != Governing || len(paths) == 0 || relay.IsTerminal(1) || os.Getenv("COLUMNS") != "":
		return nil, false // COLUMNS fits the table to a width
	default:
		if v := os.Getenv("CLICOLOR_FORCE"); v != "" && v != "0" {
			return nil, false
		}
	}
	if !path.IsAbs(dir) {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, false
		}
		dir = path.Join(cwd, dir)
	}
	return &Invocation{Op: command, Dir: dir, Paths: paths}, true
}

// load returns gitDir's sidecar of op when it is this binary's and this
// environment's, for the worktree at top (a status names its root: only
// the same spelling will do). The file is mapped, not read: on a machine
// where a page fault is dear, the page cache's pages cost less than fresh
// heap.
func load(gitDir, op, top string) (*opened, bool) {
	fp := relay.ClientFingerprint()
	fd, err := syscall.Open(Path(gitDir, op, fp), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Size <= 0 || st.Size > 1<<30 {
		return nil, false
	}
	data, err := syscall.Mmap(fd, 0, int(st.Size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, false // never unmapped: the process exits, or the full command runs
	}
	f, err := open(data)
	if err != nil || f.Op != op || f.Fingerprint != fp || (top != f.Root && (op == Status || !contains(f.Aliases, top))) {
		return nil, false
	}
	return f, true
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// unchanged reports whether every recorded input of f is as recorded.
func unchanged(f *opened) bool { return startCheck(f).result() }

// A checkRun checks a sidecar's records in runs of consecutive ones
// (inputs come grouped by directory), taken in turn by goroutines started
// with it and by whoever waits for its result: the early governing answer
// starts it in an init function and prepares its answer meanwhile, and
// the caller that then waits checks the runs nobody has taken yet rather
// than idling.
type checkRun struct {
	root  string
	runs  []checkPart
	next  atomic.Int64 // the next run to take
	left  atomic.Int64 // runs not finished
	bad   atomic.Bool  // a record changed, or did not decode
	done  chan struct{}
	whole bool // the records decoded to the end
}

type checkPart struct {
	b []byte
	n uint64
}

// checkRunLen is the records a run holds: small enough that a late
// helper still finds some, large enough that its directory descriptor
// serves many files.
const checkRunLen = 256

// startCheck splits f's records into runs (a first pass finds where each
// starts) and starts GOMAXPROCS-1 goroutines on them when there are
// several.
func startCheck(f *opened) *checkRun {
	c := &checkRun{root: f.Root, done: make(chan struct{})}
	d := decoder{b: f.stats}
	for left := f.count; left > 0; {
		n := min(uint64(checkRunLen), left)
		start := d.b
		for range n {
			if _, ok := d.next(); !ok {
				c.runs = nil // nothing to take: the answer is already no
				c.bad.Store(true)
				close(c.done)
				return c
			}
		}
		c.runs = append(c.runs, checkPart{start[:len(start)-len(d.b)], n})
		left -= n
	}
	c.whole = len(d.b) == 0
	c.left.Store(int64(len(c.runs)))
	if len(c.runs) == 0 {
		close(c.done)
		return c
	}
	for range min(runtime.GOMAXPROCS(0)-1, len(c.runs)-1) {
		go c.work()
	}
	return c
}

// work checks runs until none is left to take.
func (c *checkRun) work() {
	for {
		i := c.next.Add(1) - 1
		if i >= int64(len(c.runs)) {
			return
		}
		if !c.bad.Load() && !check(c.root, c.runs[i].b, c.runs[i].n) {
			c.bad.Store(true)
		}
		if c.left.Add(-1) == 0 {
			close(c.done)
		}
	}
}

// result takes part in the check and reports, once every run is done,
// whether all records were unchanged.
func (c *checkRun) result() bool {
	c.work()
	<-c.done
	return c.whole && !c.bad.Load()
}

// check reports whether the n encoded records in b are all unchanged.
func check(root string, b []byte, n uint64) bool {
	d := decoder{b: b}
	var c checker
	defer c.close()
	for range n {
		s, ok := d.next()
		if !ok || !c.same(root, &s) {
			return false
		}
	}
	return len(d.b) == 0
}

// checker lstats inputs through an open descriptor of their directory
// (inputs come grouped by directory), sparing the kernel the walk from
// the root for every file.
type checker struct {
	dir  string // as recorded: relative to the root, or absolute
	fd   int
	open bool
	name []byte // the base name, NUL-terminated for the system call
}

const (
	oPath             = 0x200000 // O_PATH
	atSymlinkNoFollow = 0x100
)

func (c *checker) same(root string, s *Stat) bool {
	p := s.Path
	i := len(p) - 1
	for i >= 0 && p[i] != '/' {
		i--
	}
	dir, base := "", p[i+1:]
	if i >= 0 {
		dir = p[:i]
		if dir == "" {
			dir = "/" // a file of the file system's root
		}
	}
	if base == "" { // the root, recorded as ""
		base = "."
	}
	if !c.open || dir != c.dir {
		c.close()
		full := dir
		switch {
		case dir == "":
			full = root
		case dir[0] != '/':
			full = root + "/" + dir
		}
		fd, err := syscall.Open(full, oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return s.Absent && (err == syscall.ENOENT || err == syscall.ENOTDIR)
		}
		c.dir, c.fd, c.open = dir, fd, true
	}
	c.name = append(append(c.name[:0], base...), 0)
	var st syscall.Stat_t
	// Raw: an lstat of a cached inode does not block, and the runtime's
	// bookkeeping around a system call costs a fifth of one here.
	_, _, errno := syscall.RawSyscall6(sysFstatat, uintptr(c.fd), uintptr(unsafe.Pointer(&c.name[0])), uintptr(unsafe.Pointer(&st)), atSymlinkNoFollow, 0, 0)
	if s.Absent {
		return errno == syscall.ENOENT || errno == syscall.ENOTDIR
	}
	return errno == 0 && fromSys(s.Path, &st) == *s
}

func (c *checker) close() {
	if c.open {
		syscall.Close(c.fd)
		c.open = false
	}
}
