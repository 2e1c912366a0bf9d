package relay

import (
	"errors"
	"os"
	"path"
	"syscall"
	"time"
	"unsafe"
)

// The early answer runs while the program initialises (see the package
// comment): nothing it calls may need another package of kontext.
func init() {
	if code, ok := early(os.Args[1:]); ok {
		os.Exit(code)
	}
}

// served are the commands whose invocations a daemon may answer. The
// daemon decides (it parses the command line as kontext does); this only
// spares every other invocation a connect.
var served = map[string]bool{"governing": true, "status": true, "list": true, "show": true, "search": true, "brief": true, "api": true}

// early hands the invocation to the repository's daemon and returns its
// exit code with ok when the daemon answered; its output is written
// already. Anything else (no daemon, a terminal to format for, input on
// stdin, a fallback reply, an error) returns ok false: the program runs
// as if nothing happened.
func early(args []string) (code int, ok bool) {
	if len(args) == 0 || os.Getenv("KONTEXT_DAEMON") == "off" || isTerminal(1) || isTerminal(2) {
		return 0, false
	}
	dir, ok := target(args)
	if !ok {
		return 0, false
	}
	cwd, err := os.Getwd()
	if err != nil {
		return 0, false
	}
	if !path.IsAbs(dir) {
		dir = path.Join(cwd, dir)
	}
	gitDir := FindGitDir(dir)
	if gitDir == "" {
		return 0, false
	}
	rep, err := Hand(Socket(gitDir), &Request{V: Protocol, Op: "cli", Key: ClientFingerprint(), Dir: cwd, Args: args, Columns: os.Getenv("COLUMNS")})
	if err != nil || !rep.Served {
		return 0, false
	}
	// A reader that went away (| head) ends the output quietly, as the
	// program's own writes do.
	writeAll(1, rep.Stdout)
	writeAll(2, rep.Stderr)
	return rep.Code, true
}

// target returns the directory the invocation addresses (-C, else "."),
// ok false when its command (the first argument that is no flag) is not
// one a daemon serves, or the invocation reads stdin ("-") or streams
// progress.
func target(args []string) (dir string, ok bool) {
	dir, command := ".", ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return dir, served[command]
		case a == "-" || a == "--progress" || hasPrefix(a, "--progress="):
			return "", false
		case a == "-C":
			if i+1 >= len(args) {
				return "", false
			}
			i++
			dir = args[i]
		case hasPrefix(a, "-C="):
			dir = a[3:]
		case hasPrefix(a, "-C") && command == "":
			dir = a[2:]
		case a == "--jq" || a == "--color" || a == "--output-format":
			i++ // the flag's value
		case command == "" && !hasPrefix(a, "-"):
			command = a
		}
	}
	return dir, served[command]
}

// IsTerminal reports whether fd is a terminal (one ioctl; package term
// would initialise more first).
func IsTerminal(fd int) bool { return isTerminal(fd) }

func isTerminal(fd int) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

func writeAll(fd int, s string) {
	b := []byte(s)
	for len(b) > 0 {
		n, err := syscall.Write(fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return
		}
		b = b[n:]
	}
}

// Hand sends a "cli" request to the daemon listening on socket and reads
// its framed answer. It refuses a daemon of another user. It uses the
// system calls directly: the net package would be initialised first.
func Hand(socket string, req *Request) (*Reply, error) {
	line, ok := AppendRequest(nil, req)
	if !ok {
		return nil, errors.New("the command line is not UTF-8")
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	// A Unix socket's connect waits up to the send timeout when the
	// daemon's backlog is full.
	if err := setTimeout(fd, syscall.SO_SNDTIMEO, dialTimeout); err != nil {
		return nil, err
	}
	if err := setTimeout(fd, syscall.SO_RCVTIMEO, replyTimeout); err != nil {
		return nil, err
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: socket})
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		return nil, err
	}
	if int(cred.Uid) != os.Getuid() {
		return nil, errors.New("the other end of the socket is another user")
	}
	if err := setTimeout(fd, syscall.SO_SNDTIMEO, replyTimeout); err != nil {
		return nil, err
	}
	for len(line) > 0 {
		n, err := syscall.Write(fd, line)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		line = line[n:]
	}
	// The daemon answers and closes.
	buf := make([]byte, 0, 16<<10)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err // a timeout too (EAGAIN)
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return ParseCommandReply(buf)
}

// Socket is the daemon socket of the repository whose git dir is gitDir.
func Socket(gitDir string) string { return path.Join(gitDir, "kontext", "daemon.sock") }

// FindGitDir returns the git dir of the worktree containing dir (walking
// up as git does, following a ".git" file), "" outside git. It costs one
// stat per level and reads nothing else: the client calls it before
// deciding whether to open an engine at all.
func FindGitDir(dir string) string {
	_, gitDir := FindRepo(dir)
	return gitDir
}

// FindRepo is FindGitDir that also returns the worktree's top directory
// (where the ".git" it followed is); both "" outside git.
func FindRepo(dir string) (worktree, gitDir string) {
	if !path.IsAbs(dir) {
		cwd, err := os.Getwd()
		if err != nil {
			return "", ""
		}
		dir = path.Join(cwd, dir)
	}
	for d := path.Clean(dir); ; {
		p := path.Join(d, ".git")
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return d, p
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return "", ""
			}
			g := trimSpace(string(data))
			if !hasPrefix(g, "gitdir:") {
				return "", ""
			}
			g = trimSpace(g[len("gitdir:"):])
			if !path.IsAbs(g) {
				g = path.Join(d, g)
			}
			return d, g
		}
		parent := path.Dir(d)
		if parent == d {
			return "", ""
		}
		d = parent
	}
}

// hasPrefix and trimSpace: package strings would initialise unicode first.
func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

func trimSpace(s string) string {
	space := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' }
	for len(s) > 0 && space(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && space(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func setTimeout(fd, opt int, d time.Duration) error {
	tv := syscall.NsecToTimeval(d.Nanoseconds())
	return syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, opt, &tv)
}
