package main

import (
	"context"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"

	"github.com/kontext/kontext/internal/bundle"
	"github.com/kontext/kontext/internal/outfile"
	"github.com/kontext/kontext/internal/review"
)

// runReviewCmd serves the review console of a change on 127.0.0.1 until
// interrupted, or with --out writes it as one self-contained HTML file.
func runReviewCmd(g *factory, fs *pflag.FlagSet) runFunc {
	base := fs.String("base", "", "base revision (default: merge base with origin/HEAD, origin/main, the upstream…)")
	head := fs.String("head", "", "head revision (default: HEAD plus the working tree)")
	port := fs.Int("port", 0, "port on 127.0.0.1 (0 = any free port)")
	noOpen := fs.Bool("no-open", false, "do not try to open a browser")
	out := fs.String("out", "", "write one self-contained HTML file instead of serving (- = stdout)")
	format := fs.String("format", "", "markdown: print the pull-request comment body and exit (no server)")
	broad := fs.Bool("broad", false, broadUsage)
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		pos := args
		if len(pos) > 0 {
			return usageErr(g, stderr, "kontext review takes no arguments (got %q)", pos[0])
		}
		switch {
		case *format == "markdown" && *out != "":
			return usageErr(g, stderr, "--format markdown prints to stdout; it does not take --out")
		case *format == "markdown":
			return runReviewMarkdown(ctx, g, changeFlags{base: *base, head: *head, broad: *broad})
		case *format != "":
			return usageErr(g, stderr, "--format takes markdown, not %q", *format)
		}
		if *port < 0 || *port > 65535 {
			return usageErr(g, stderr, "--port %d is not a port (0-65535)", *port)
		}
		// The console reviews the change at hand: without --head it includes
		// uncommitted knowledge (a local review; private entries stay out).
		opts := bundle.Options{Dir: g.dir, Base: *base, Head: *head, Worktree: *head == "", Broad: *broad, Progress: g.prog.engineProgress()}
		build := func(ctx context.Context) ([]byte, error) {
			b, err := bundle.Build(ctx, opts)
			if err != nil {
				return nil, err
			}
			return bundle.Marshal(b)
		}
		assets := review.Assets()
		if *out != "" {
			// Streamed into the file: the bundle (large for a large knowledge
			// base) is never encoded into memory as a whole.
			g.prog.state("building the bundle")
			b, err := bundle.Build(ctx, opts)
			if err != nil {
				return fail(g, stderr, err)
			}
			g.prog.state("writing the page")
			var pageErr error // the page's own error (assets missing), not the file's
			page := func(w io.Writer) error {
				pageErr = review.WriteSingleFile(w, assets, func(w io.Writer) error { return bundle.EncodeInline(w, b) })
				return pageErr
			}
			if outfile.IsStdout(*out) {
				o := newOut(stdout, g)
				if err := page(o); err != nil && o.err == nil {
					fmt.Fprintf(stderr, "kontext: %v\n", err)
					return exitFailed
				}
				g.prog.fileDone(*out, "")
				return o.finish(stderr, exitOK, o.lines)
			}
			n, err := outfile.Write(*out, page)
			if err != nil && err == pageErr {
				fmt.Fprintf(stderr, "kontext: %v\n", err)
				return exitFailed
			}
			if err != nil {
				return fail(g, stderr, err)
			}
			g.prog.fileDone(*out, *out)
			return emit(g, stdout, reviewPage{Path: *out, Bytes: int(n)}, func(w io.Writer) {
				fmt.Fprintf(w, "wrote %s (%d bytes)\n", *out, n)
			})
		}

		// Built once up front: a bad --base fails here, not in the browser.
		g.prog.state("building the bundle")
		first, err := build(ctx)
		if err != nil {
			return fail(g, stderr, err)
		}

		if missing := review.Missing(assets); len(missing) > 0 {
			fmt.Fprintf(stderr, "kontext: warning: the console is not built into this binary (run make build); / explains, /bundle.json works\n")
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(*port)))
		if err != nil {
			fmt.Fprintf(stderr, "kontext: listening on 127.0.0.1:%d: %v\n", *port, err)
			return exitFailed
		}
		url := "http://" + ln.Addr().String() + "/"
		if code := emit(g, stdout, map[string]string{"url": url}, func(w io.Writer) {
			fmt.Fprintf(w, "kontext review: %s  (Ctrl-C stops)\n", url)
		}); code != exitOK {
			return code
		}
		// The first request gets the bundle built above; later ones a fresh one.
		var once sync.Once
		srv := &review.Server{Assets: assets, Bundle: func(ctx context.Context) ([]byte, error) {
			var data []byte
			once.Do(func() { data = first })
			if data != nil {
				return data, nil
			}
			return build(ctx)
		}}
		if !*noOpen && isTerminal(stdout) {
			openBrowser(url)
		}
		if err := review.Serve(ctx, ln, srv); err != nil {
			fmt.Fprintf(stderr, "kontext: serving %s: %v\n", url, err)
			return exitFailed
		}
		return exitOK
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// openBrowser tries xdg-open or open; failure is silent (the URL is printed).
func openBrowser(url string) {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return
	}
	cmd := exec.Command(path, url)
	if cmd.Start() == nil {
		go cmd.Wait()
	}
}

// reviewPage is kontext review --out --json: the page written.
type reviewPage struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
}
