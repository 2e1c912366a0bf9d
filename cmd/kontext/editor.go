package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/kontext/kontext/engine/drafts"
)

// editorCommand is the person's editor: $VISUAL, then $EDITOR, then vi
// when it is installed ("" when there is none).
func editorCommand() string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if ed := strings.TrimSpace(os.Getenv(v)); ed != "" {
			return ed
		}
	}
	if _, err := exec.LookPath("vi"); err == nil {
		return "vi"
	}
	return ""
}

// wantsEditor reports whether new/supersede open the editor by
// themselves: no --body, and stdin and stdout are a terminal (a person is
// typing, nothing is piped in).
func wantsEditor(g *factory) bool {
	f, ok := g.io.In.(*os.File)
	return ok && isTerminal(f) && g.io.IsTTY
}

// editBody opens the body template of kind in the person's editor and
// returns what they wrote, with the template's guidance comments and the
// template headings left without text dropped. "" means they wrote
// nothing: the caller aborts and stages nothing.
func editBody(ctx context.Context, g *factory, kind, title string) (string, error) {
	ed := editorCommand()
	if ed == "" {
		return "", fmt.Errorf("no editor: set VISUAL or EDITOR, or pass the body with --body or on stdin")
	}
	e, err := g.engine()
	if err != nil {
		return "", err
	}
	t, err := drafts.NewTemplate(ctx, e, kind)
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp("", "kontext-new-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "BODY.md")
	head := "<!-- " + title + " (" + kind + ", " + t.Style + " style). Write the body below; these comments are dropped. Leave it empty to abort: nothing is staged. -->"
	if err := os.WriteFile(p, []byte(head+"\n\n"+t.Body), 0o600); err != nil {
		return "", err
	}
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		f := strings.Fields(ed)
		cmd = exec.CommandContext(ctx, f[0], append(f[1:], p)...)
	} else {
		// Through the shell, as git does: EDITOR may carry arguments ("code --wait").
		cmd = exec.CommandContext(ctx, "sh", "-c", ed+` "$1"`, "sh", p)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = g.io.In, g.io.Out, g.io.ErrOut
	if !g.io.IsTTY {
		cmd.Stdout = g.io.ErrOut // stdout carries the result (--json): the editor's words go to stderr
	}
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("the editor (%s) failed: %w; nothing was staged", ed, err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	return cleanTemplate(string(data), append([]string{head}, t.Guidance...), templateHeadings(t.Body)), nil
}

// cleanTemplate drops the guidance comments, then every template heading
// whose section is left empty, and trims blank lines at both ends.
func cleanTemplate(text string, guidance, headings []string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	for _, c := range guidance {
		text = strings.ReplaceAll(text, c, "")
	}
	lines := strings.Split(text, "\n")
	isHeading := map[string]bool{}
	for _, h := range headings {
		isHeading[h] = true
	}
	var out []string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if isHeading[t] {
			empty := true
			for _, next := range lines[i+1:] {
				n := strings.TrimSpace(next)
				if strings.HasPrefix(n, "#") {
					break
				}
				if n != "" {
					empty = false
					break
				}
			}
			if empty {
				continue
			}
		}
		out = append(out, strings.TrimRight(l, " \t"))
	}
	// Collapse the blank runs the dropped lines leave behind.
	var b strings.Builder
	blank := 0
	for _, l := range out {
		if l == "" {
			blank++
			continue
		}
		if b.Len() > 0 && blank > 0 {
			b.WriteString("\n")
		}
		blank = 0
		b.WriteString(l + "\n")
	}
	return strings.TrimSpace(b.String())
}

// templateHeadings are the heading lines of a template body.
func templateHeadings(body string) []string {
	var hs []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "#") {
			hs = append(hs, l)
		}
	}
	return hs
}
