package dirfs

import (
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
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "a", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(root, "a", "x.md"), []byte("hello"), 0o644))
	must(os.WriteFile(filepath.Join(root, "a", "b.md"), []byte("hi"), 0o600))
	must(os.Symlink("x.md", filepath.Join(root, "a", "link.md")))
	must(os.WriteFile(filepath.Join(outside, "secret.md"), []byte("s"), 0o644))
	must(os.Symlink(outside, filepath.Join(root, "out")))
	base := osfs.New(root, osfs.WithBoundOS())
	fs := New(base, root)
	for _, dir := range []string{"", ".", "a", "a/sub", "out", "missing"} {
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
