package kb

import (
	"errors"
	"os"
	"sync"
	"time"

	"github.com/kontext/kontext/engine/internal/entry"
	"github.com/kontext/kontext/engine/internal/link"
)

// Input is one path a read consumed, with its stat data from before it
// was read: a file, a directory that was listed, or a path found absent
// (Info nil).
type Input struct {
	Path string
	Info os.FileInfo
}

// recording collects a read's inputs (Record).
type recording struct {
	start  time.Time
	mu     sync.Mutex // sources are listed in parallel
	inputs []Input
	whole  bool      // false: the stat data alone cannot tell the read unchanged
	snap   *Snapshot // what the read answered
}

// Record makes every later read collect its inputs, for Inputs.
func (r *Reader) Record(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.record = on
}

// Inputs returns what the read that answered s consumed and when it
// started: besides the files and directories it read, every link and
// directory a link's resolution passed (a link is replaced, never
// changed in place, so its own stat data tells a new target). ok is false
// when those inputs' stat data alone cannot tell a later state of the
// files from the one read: a link reported as a diagnostic, a listing
// reused after Touched, a read made without Record, or s not the last
// read's answer.
func (r *Reader) Inputs(s *Snapshot) (inputs []Input, start time.Time, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastRec == nil || !r.lastRec.whole || r.lastRec.snap != s || s == nil {
		return nil, time.Time{}, false
	}
	return r.lastRec.inputs, r.lastRec.start, true
}

func (r *Reader) newRecording() *recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.record {
		return nil
	}
	return &recording{start: time.Now(), whole: true}
}

// stat records name's stat data (or its absence) before it is read; a
// symbolic link makes the recording partial.
func (c *recording) stat(r *Reader, name string) {
	if c == nil {
		return
	}
	fi, err := r.fs.Lstat(link.FSPath(name))
	switch {
	case errors.Is(err, os.ErrNotExist):
		c.add(name, nil)
	case err != nil || isLink(fi):
		c.partial()
	default:
		c.add(name, fi)
	}
}

func (c *recording) add(name string, fi os.FileInfo) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.inputs = append(c.inputs, Input{Path: name, Info: fi})
	c.mu.Unlock()
}

func (c *recording) partial() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.whole = false
	c.mu.Unlock()
}

// files records the listed files: their stat data is the listing's.
func (c *recording) files(lists [][]job, linkDiags [][]entry.Diagnostic) {
	if c == nil {
		return
	}
	for i, l := range lists {
		if len(linkDiags[i]) > 0 {
			c.partial()
		}
		for _, j := range l {
			if j.target != "" {
				// reached through a link (which the resolution or the
				// walk recorded): the stat data is the target's
				c.add(j.target, j.info)
				continue
			}
			c.add(j.path, j.info)
		}
	}
}
