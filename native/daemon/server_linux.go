package daemon

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/native"
	"github.com/kontext/kontext/native/internal/buildkey"
	"github.com/kontext/kontext/native/relay"
)

// maxRequest bounds one request line (the API's stdin limit plus room).
const maxRequest = 4 << 20

type server struct {
	root, gitDir string
	paths        Paths
	key          string
	idle         time.Duration
	warm         *engine.Engine
	command      func(context.Context, *Invocation) (*Output, error)
	watch        *watcher
	since        time.Time

	mu       sync.Mutex // one request at a time: drain, then answer
	last     atomic.Int64
	served   atomic.Int64
	fallback atomic.Int64
	// lastFallback is why the last request ran in its client.
	lastFallback atomic.Value
	stop         chan struct{}
	stopOnce     sync.Once
}

// Run serves the repository containing cfg.Dir until ctx ends, a client
// asks it to stop, it has been idle for cfg.Idle, or its git dir or socket
// disappears.
func Run(ctx context.Context, cfg Config) error {
	warm, err := native.OpenWith(cfg.Dir, native.Options{Immutable: true})
	if err != nil {
		return err
	}
	g, ok := warm.Options().Git.(interface{ GitDir() string })
	if !ok || g.GitDir() == "" {
		return errors.New("kontext daemon needs a git repository (it keeps its socket in the git dir)")
	}
	s := &server{root: warm.Options().Root, gitDir: g.GitDir(), paths: PathsOf(g.GitDir()), warm: warm, command: cfg.Command, idle: cfg.Idle, since: time.Now().UTC(), stop: make(chan struct{})}
	if s.idle <= 0 {
		s.idle = DefaultIdle
	}
	environ := cfg.Environ
	if environ == nil {
		environ = os.Environ()
	}
	s.key = relay.Fingerprint(buildkey.Key(), environ)
	for _, d := range []string{s.root, s.gitDir} {
		if err := localFS(d); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(s.paths.Dir, 0o755); err != nil {
		return err
	}
	unlock, err := lock(s.paths.Lock)
	if err != nil {
		return err
	}
	defer unlock()
	if s.watch, err = newWatcher(s.root); err != nil {
		return err
	}
	defer s.watch.close()
	// The first read: watches first, then the warm read the requests share.
	if err := s.sync(ctx); err != nil {
		return fmt.Errorf("watching the knowledge files: %w", err)
	}
	if _, err := warm.Read(ctx); err != nil {
		return err
	}
	// From now on a changed knowledge base is answered first and stored
	// after (save); what is owed when the daemon ends is stored then,
	// unless its repository is gone (a store would create it again).
	engine.DeferSaves(warm, true)
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, err := os.Stat(s.gitDir); err == nil {
			engine.SaveDeferred(warm)
		}
	}()
	os.Remove(s.paths.Socket) // a dead daemon's: the lock says none runs
	old := unix.Umask(0o077)  // the socket is created 0600
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.paths.Socket, Net: "unix"})
	unix.Umask(old)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", s.paths.Socket, err)
	}
	ln.SetUnlinkOnClose(false) // removed below, only while it is still ours
	sockID := fileID(s.paths.Socket)
	defer func() {
		ln.Close()
		if fileID(s.paths.Socket) == sockID {
			os.Remove(s.paths.Socket)
		}
	}()
	s.last.Store(time.Now().UnixNano())
	if cfg.Ready != nil {
		cfg.Ready(s.info())
	}
	go s.accept(ctx, ln)
	tick := cfg.Tick
	if tick <= 0 {
		tick = time.Second
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-s.stop:
			return nil
		case <-t.C:
		}
		if time.Since(time.Unix(0, s.last.Load())) >= s.idle {
			return nil // idle: orphan daemons do not accumulate
		}
		if _, err := os.Stat(s.gitDir); err != nil {
			return nil // the repository is gone
		}
		if fileID(s.paths.Socket) != sockID {
			return nil // another daemon or a person took the socket's place
		}
	}
}

func fileID(p string) uint64 {
	var st unix.Stat_t
	if unix.Lstat(p, &st) != nil {
		return 0
	}
	return st.Ino
}

func (s *server) accept(ctx context.Context, ln *net.UnixListener) {
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			return // closed
		}
		go s.handle(ctx, c)
	}
}

func (s *server) handle(ctx context.Context, c *net.UnixConn) {
	defer c.Close()
	if checkPeer(c) != nil {
		return // another user: no answer at all
	}
	c.SetDeadline(time.Now().Add(time.Minute))
	line, err := bufio.NewReaderSize(io.LimitReader(c, maxRequest), 64<<10).ReadBytes('\n')
	if err != nil {
		return
	}
	var req relay.Request
	var rep relay.Reply
	if json.Unmarshal(line, &req) != nil || req.V != relay.Protocol {
		rep.Fallback = "protocol"
	} else {
		rep = s.answer(ctx, &req)
	}
	if req.Op == "cli" {
		c.Write(relay.AppendCommandReply(nil, &rep))
	} else {
		out, _ := json.Marshal(rep)
		c.Write(append(out, '\n'))
	}
	// The client reads until the connection closes: close it, then store
	// what the answer left owed.
	c.Close()
	s.save()
}

func (s *server) answer(ctx context.Context, req *relay.Request) relay.Reply {
	s.last.Store(time.Now().UnixNano())
	switch req.Op {
	case "daemon.status":
		info := s.info()
		return relay.Reply{Status: &info}
	case "daemon.stop":
		info := s.info()
		s.stopOnce.Do(func() { close(s.stop) })
		return relay.Reply{Status: &info}
	}
	var rep relay.Reply
	var err error
	switch {
	case req.Key != s.key:
		err = errors.New("the client is another build or runs in another environment")
	case req.Op == "cli":
		var out *Output
		if out, err = s.cli(ctx, req); err == nil {
			rep = relay.Reply{Served: true, Stdout: string(out.Stdout), Stderr: string(out.Stderr), Code: out.Code}
		}
	case !Forwardable(req.Op):
		err = errors.New(req.Op + " is not answered by the daemon")
	default:
		var env []byte
		if env, err = s.request(ctx, req); err == nil {
			rep = relay.Reply{Envelope: string(env)}
		}
	}
	if err != nil {
		s.fallback.Add(1)
		s.lastFallback.Store(err.Error())
		return relay.Reply{Fallback: err.Error()}
	}
	s.served.Add(1)
	return rep
}

// request answers one API request: every event queued before it arrived
// is read first.
func (s *server) request(ctx context.Context, req *relay.Request) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	e, err := s.open(req.Dir, native.Options{})
	if err != nil {
		return nil, err // the local run says it the same way
	}
	return e.Request(ctx, req.Op, []byte(req.Input)), nil
}

// cli runs a command line a client handed over (Config.Command), after
// every event queued before it arrived is read. A failed Open (another
// repository, a directory that cannot be opened) makes the client run it:
// its own run says it the same way.
func (s *server) cli(ctx context.Context, req *relay.Request) (*Output, error) {
	if s.command == nil {
		return nil, errors.New("this daemon answers API requests only")
	}
	if !filepath.IsAbs(req.Dir) {
		return nil, errors.New("the client sent no absolute working directory")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	var openErr error
	inv := &Invocation{Args: req.Args, Cwd: req.Dir, Columns: req.Columns, Open: func(dir string, o native.Options) (*engine.Engine, error) {
		e, err := s.open(dir, o)
		if err != nil && openErr == nil {
			openErr = err
		}
		return e, err
	}}
	out, err := s.command(ctx, inv)
	if err == nil {
		err = openErr
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// save stores the warm read's snapshot when a changed knowledge base left
// it owed, after the answer went out (a local run then starts warm).
func (s *server) save() {
	s.mu.Lock()
	defer s.mu.Unlock()
	engine.SaveDeferred(s.warm)
}

// ready reads the queued events; an error or a degraded watch means the
// request runs in the client.
func (s *server) ready(ctx context.Context) error {
	if err := s.sync(ctx); err != nil {
		return err
	}
	if s.watch.degraded != "" {
		return errors.New(s.watch.degraded)
	}
	return nil
}

// open opens the engine of dir over the daemon's warm read; another
// repository's is refused.
func (s *server) open(dir string, o native.Options) (*engine.Engine, error) {
	e, err := native.OpenWith(dir, o)
	if err != nil {
		return nil, err
	}
	if e.Options().Root != s.root {
		return nil, errors.New("the request is for another repository")
	}
	engine.ShareKnowledge(e, s.warm)
	return e, nil
}

// sync reads every queued event: a change to a watched file makes the
// warm engine read again, stating every file (the snapshot store's
// validation, as a process without a daemon does); a change to the
// tree's shape or the configuration rebuilds the watches first (watch,
// then read, so nothing changes unseen between the two).
func (s *server) sync(ctx context.Context) error {
	for i := 0; ; i++ {
		if err := s.watch.drain(); err != nil {
			return err
		}
		if !s.watch.rebuild {
			break
		}
		if i == 3 {
			return errors.New("the knowledge tree keeps changing")
		}
		s.watch.rebuild = false
		engine.SetImmutable(s.warm, false) // the inputs from a fresh read
		if err := s.watch.watchAll(ctx, s.warm); err != nil {
			s.watch.rebuild = true
			return err
		}
		s.watch.stale, s.watch.full = true, true // files read before their watch existed
	}
	if !s.watch.stale {
		return nil
	}
	// Only files changed in place: the immutable read re-stats them alone
	// (the reader lists everything itself when it cannot).
	if !s.watch.full && len(s.watch.changed) > 0 {
		engine.Touched(s.warm, s.watch.changed...)
		s.watch.changed = nil
		if _, err := s.warm.Read(ctx); err == nil {
			s.watch.stale = false
			return nil
		}
	}
	// One read with every file stated; until it succeeds, every request
	// reads like that (an invalid configuration answers its error each
	// time).
	s.watch.full, s.watch.changed = true, nil
	engine.SetImmutable(s.warm, false)
	if _, err := s.warm.Read(ctx); err != nil {
		return nil
	}
	s.watch.stale, s.watch.full = false, false
	engine.SetImmutable(s.warm, true)
	return nil
}

func (s *server) info() relay.Info {
	info := relay.Info{PID: os.Getpid(), Root: s.root, Socket: s.paths.Socket, Since: s.since, Requests: s.served.Load(),
		Fallbacks: s.fallback.Load(), WatchedDirs: s.watch.count(), Idle: s.idle.String(), Degraded: s.watch.degradedNow()}
	info.LastFallback, _ = s.lastFallback.Load().(string)
	return info
}

// checkPeer refuses a connection whose other end is another user.
func checkPeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return errors.New("not a Unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if int(cred.Uid) != os.Getuid() {
		return errors.New("the other end of the socket is another user")
	}
	return nil
}

// lock takes the daemon lock (one daemon per repository) and writes the
// pid into it.
func lock(p string) (func(), error) {
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		data, _ := io.ReadAll(f)
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			return nil, &ErrRunning{PID: pid}
		}
		return nil, err
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Close() }, nil
}

// RunningPID returns the pid of the daemon holding gitDir's lock, 0 when
// none does.
func RunningPID(gitDir string) int {
	p := PathsOf(gitDir).Lock
	f, err := os.Open(p)
	if err != nil {
		return 0
	}
	defer f.Close()
	if unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB) == nil {
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		return 0 // nobody holds it
	}
	data, _ := io.ReadAll(f)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}

// Network and user-space file systems do not report every change through
// inotify (another machine's writes, a FUSE daemon's own): like git's
// fsmonitor, the daemon refuses them.
var remoteFS = map[int64]string{
	0x6969:     "NFS",
	0x517b:     "SMB",
	0xff534d42: "CIFS",
	0xfe534d42: "SMB2",
	0x65735546: "FUSE",
	0x5346414f: "AFS",
	0x73757245: "Coda",
	0x01021997: "9P",
	0x00c36400: "Ceph",
	0x013111a8: "IBRIX",
	0x47504653: "GPFS",
	0x0bd00bd0: "Lustre",
	0x564c:     "NCP",
}

func localFS(dir string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return err
	}
	if name, ok := remoteFS[int64(st.Type)]; ok {
		return fmt.Errorf("%s is on a %s file system, where inotify does not see every change: kontext daemon runs only on local file systems", dir, name)
	}
	return nil
}

// Spawn starts `exe args…` as a daemon: a session of its own, stdin from
// /dev/null, stdout and stderr appended to logPath.
func Spawn(exe string, args []string, logPath string) (*os.Process, error) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer log.Close()
	return os.StartProcess(exe, args, &os.ProcAttr{Files: []*os.File{null, log, log}, Sys: &syscall.SysProcAttr{Setsid: true}})
}

// Supported reports whether this platform has the monitor.
const Supported = true
