package dirfs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
)

// TestReadDirEqualsWrapped: the listing (names, order, sizes, modes,
// times, inodes) equals the wrapped filesystem's, links included, and a
// directory outside the root is not listed through a link.
func TestReadDirEqualsWrapped(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	must := func(err error) { t.Helper(); mustOK(t, err) }
	must(os.MkdirAll(filepath.Join(root, "a", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(root, "a", "x.md"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(root, "a", "b.md"), []byte("hi"), 0o600))
	must(os.Symlink("x.md", filepath.Join(root, "a", "link.md")))
	must(os.WriteFile(filepath.Join(outside, "secret.md"), []byte("s"), 0o644))
	must(os.Symlink(outside, filepath.Join(root, "out")))
	// A link to a directory inside the root, on the way to a listed one.
	must(os.Symlink("a", filepath.Join(root, "in")))
	// A directory large enough that its stats are split over goroutines.
	must(os.MkdirAll(filepath.Join(root, "big", "d"), 0o755))
	for i := 0; i < 2*parallelFrom+3; i++ {
		must(os.WriteFile(filepath.Join(root, "big", fmt.Sprintf("f-%04d.md", i)), make([]byte, i%7), 0o644))
	}
	must(os.Symlink("f-0001.md", filepath.Join(root, "big", "f-0500-link.md")))
	base := osfs.New(root, osfs.WithBoundOS())
	fs := New(base, root)
	for _, dir := range []string{"", ".", "a", "a/sub", "out", "missing", "big", "in", "in/sub", "a/../a/sub", "a/x.md", "../" + filepath.Base(outside)} {
		want, werr := base.ReadDir(dir)
		got, gerr := fs.ReadDir(dir)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: error %v, wrapped %v", dir, gerr, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d entries, wrapped %d", dir, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.Name() != w.Name() || g.Size() != w.Size() || g.Mode() != w.Mode() || !g.ModTime().Equal(w.ModTime()) || g.IsDir() != w.IsDir() {
				t.Errorf("%q: %s %d %v %v, wrapped %s %d %v %v", dir, g.Name(), g.Size(), g.Mode(), g.ModTime(), w.Name(), w.Size(), w.Mode(), w.ModTime())
			}
			gs, gok := g.Sys().(*syscall.Stat_t)
			ws, wok := w.Sys().(*syscall.Stat_t)
			if gok != wok {
				t.Fatalf("%q %s: Sys() is %T, wrapped %T", dir, g.Name(), g.Sys(), w.Sys())
			}
			// The fields a listing keeps (the rest of struct stat is not read).
			kept := func(st *syscall.Stat_t) syscall.Stat_t {
				return syscall.Stat_t{Mode: st.Mode, Size: st.Size, Ino: st.Ino, Dev: st.Dev, Uid: st.Uid, Gid: st.Gid, Mtim: st.Mtim, Ctim: st.Ctim}
			}
			if gok && !reflect.DeepEqual(kept(gs), kept(ws)) {
				t.Errorf("%q %s: stat data differs: %+v, wrapped %+v", dir, g.Name(), kept(gs), kept(ws))
			}
			if ino, ok := g.(interface{ Inode() uint64 }); gok && (!ok || ino.Inode() != uint64(ws.Ino)) {
				t.Errorf("%q %s: no Inode() or not the inode", dir, g.Name())
			}
		}
	}
}

// ReadDirTypes lists what ReadDir lists with the same types, and
// ReadFiles reads what the wrapped filesystem reads, refusing a link (not
// followed) and a directory.
func TestReadDirTypesAndReadFiles(t *testing.T) {
	if !supported {
		t.Skip("dirfs wraps nothing on this platform")
	}
	root := t.TempDir()
	must := func(err error) { t.Helper(); mustOK(t, err) }
	must(os.MkdirAll(filepath.Join(root, "a", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(root, "a", "x.md"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(root, "a", "empty.md"), nil, 0o644))
	must(os.WriteFile(filepath.Join(root, "a", "big.md"), bytes.Repeat([]byte("0123456789"), 100000), 0o644))
	must(os.Symlink("x.md", filepath.Join(root, "a", "link.md")))
	f := New(osfs.New(root, osfs.WithBoundOS()), root).(*FS)
	for _, dir := range []string{"", "a", "a/sub"} {
		infos, err := f.ReadDir(dir)
		must(err)
		ents, err := f.ReadDirTypes(dir)
		must(err)
		if len(ents) != len(infos) {
			t.Fatalf("%q: %d entries, ReadDir %d", dir, len(ents), len(infos))
		}
		for i := range infos {
			if ents[i].Name() != infos[i].Name() || ents[i].Type() != infos[i].Mode().Type() {
				t.Errorf("%q: %s %v, ReadDir %s %v", dir, ents[i].Name(), ents[i].Type(), infos[i].Name(), infos[i].Mode().Type())
			}
		}
	}
	got, err := f.ReadFiles("a", []string{"x.md", "empty.md", "big.md"})
	must(err)
	for i, name := range []string{"x.md", "empty.md", "big.md"} {
		want, _ := os.ReadFile(filepath.Join(root, "a", name))
		if !bytes.Equal(got[i], want) {
			t.Errorf("%s: %d bytes, want %d", name, len(got[i]), len(want))
		}
	}
	for _, name := range []string{"link.md", "sub", "missing.md"} {
		if _, err := f.ReadFiles("a", []string{name}); err == nil {
			t.Errorf("%s read", name)
		}
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
