package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"strings"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/drafts"
)

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }
func (m *multiFlag) Type() string       { return "string" }

// newOperationID is a fresh operation_id for one CLI invocation.
func newOperationID(cmd string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "cli-" + cmd + "-" + hex.EncodeToString(b)
}

// readBody takes the body from stdin when nothing is typed at a terminal.
func readBody(stdin io.Reader) (string, error) {
	if stdin == nil {
		return "", nil
	}
	data, err := io.ReadAll(io.LimitReader(stdin, 2<<20))
	return string(data), err
}

// stageEntryCmd is the shared part of new and supersede. The body comes
// from --body; else from the person's editor, opened on the kind's
// template when --edit is given or stdin and stdout are a terminal (an
// empty result aborts, nothing staged); else from stdin. Before staging,
// a title that nearly repeats an active entry's is refused unless --force,
// and an empty body gets a warning (the entry is staged).
func stageEntryCmd(g *factory, fs *pflag.FlagSet, name string, supersede bool) runFunc {
	var paths, tags, supersedes multiFlag
	fs.Var(&paths, "path", "a governed path pattern (repeatable)")
	fs.Var(&tags, "tag", "a tag (repeatable)")
	if !supersede {
		fs.Var(&supersedes, "supersedes", "an entry the new one replaces (repeatable)")
	}
	summary := fs.String("summary", "", "one line for lists and briefs")
	body := fs.String("body", "", "the body (default: $EDITOR at a terminal, else stdin)")
	kind := fs.String("kind", "", "the kind (supersede: default the old entry's kind)")
	status := fs.String("status", "", "a new decision's status: proposed (default), accepted or rejected")
	edit := fs.Bool("edit", false, "write the body in $VISUAL/$EDITOR from the kind's template, also when no terminal is attached")
	force := fs.Bool("force", false, "stage even when an active entry has nearly the same title")
	return func(ctx context.Context, args []string) int {
		stdout, stderr, stdin := g.io.Out, g.io.ErrOut, g.io.In
		pos := args
		var err error
		bodySet := fs.Changed("body")
		if bodySet && *edit {
			return usageErr(g, stderr, "--body and --edit exclude each other: pass the body, or write it in the editor")
		}
		entryIn := &api.StageEntry{Paths: paths, Tags: tags, Summary: *summary, Status: *status}
		var exclude []string
		if supersede {
			if len(pos) != 2 {
				return usageErr(g, stderr, "usage: kontext supersede <id> \"<new title>\" [--path P]… [--tag T]… [--summary S] [--status S] [--body B | --edit] [--force]")
			}
			oe, err := read(ctx, g, (*engine.Engine).Get, &api.GetInput{ID: pos[0]})
			if err != nil {
				return failCLI(g, stderr, err)
			}
			k := oe.Kind
			if *kind != "" {
				k = *kind
			}
			entryIn.Kind, entryIn.Title, entryIn.Supersedes = k, pos[1], []string{oe.ID}
			if len(paths) == 0 {
				entryIn.Paths = oe.Paths
			}
		} else {
			if len(pos) != 2 {
				return usageErr(g, stderr, "usage: kontext new <kind> \"<title>\" [--path P]… [--tag T]… [--supersedes ID]… [--summary S] [--status S] [--body B | --edit] [--force]")
			}
			entryIn.Kind, entryIn.Title, entryIn.Supersedes = pos[0], pos[1], supersedes
		}
		exclude = append(exclude, entryIn.Supersedes...)
		// The body given (--body) or piped is read first: with it the
		// operation_id is known before anything else, so a rerun of a
		// write that was killed resumes it (or replays a finished one)
		// instead of being refused as a near-duplicate of its own file.
		// The editor opens only after the near-duplicate check.
		useEditor := !bodySet && (*edit || wantsEditor(g))
		var b string
		if !useEditor {
			if bodySet {
				b = *body
			} else if b, err = readBody(stdin); err != nil {
				return failCLI(g, stderr, err)
			}
		}
		withBody := func(b string) (*api.StageInput, string) {
			e := *entryIn
			if strings.TrimSpace(b) != "" {
				e.Body = b
			}
			in := &api.StageInput{Entry: &e}
			return in, derivedOperationID(name, in)
		}
		resuming := false
		if !useEditor {
			_, opID := withBody(b)
			done, pending, err := priorWrite(ctx, g, opID)
			if err != nil {
				return failCLI(g, stderr, err)
			}
			if done != nil {
				return emitStaged(g, stdout, done)
			}
			resuming = pending
		}
		if !*force && !resuming && strings.TrimSpace(entryIn.Title) != "" {
			dups, err := nearDuplicates(ctx, g, entryIn.Title, exclude)
			if err != nil {
				return failCLI(g, stderr, err)
			}
			if len(dups) > 0 {
				var names []string
				for _, d := range dups {
					names = append(names, fmt.Sprintf("%s (%q)", d.ID, d.Title))
				}
				hint := ""
				if st, err := g.status(ctx); err == nil && len(st.IncompleteOperations) > 0 {
					hint = fmt.Sprintf(" (kontext status lists %d unfinished write(s): if one left that entry, run the command it names to finish it)", len(st.IncompleteOperations))
				}
				return fail(g, stderr, apierr.New(apierr.OperationConflict,
					"%q nearly repeats the title of %s; nothing was staged. Add to it (kontext extend %s \"<text>\"), replace it (kontext supersede %s \"<title>\"), or pass --force to stage a new entry anyway%s",
					entryIn.Title, strings.Join(names, ", "), dups[0].ID, dups[0].ID, hint))
			}
		}
		if useEditor {
			if b, err = editBody(ctx, g, entryIn.Kind, entryIn.Title); err != nil {
				return failCLI(g, stderr, err)
			}
			if b == "" {
				return fail(g, stderr, apierr.Invalid("the body is empty: aborted, nothing was staged"))
			}
		}
		if strings.TrimSpace(b) == "" {
			fmt.Fprintf(stderr, "kontext: warning: %q has no body: reviewers see only its title (pass --body, pipe it on stdin, or use --edit)\n", entryIn.Title)
		}
		in, opID := withBody(b)
		in.OperationID = opID
		note := ""
		switch {
		case useEditor:
			note = "with the same body in the editor"
		case !bodySet && in.Entry.Body != "":
			note = "with the same body on standard input"
		}
		res, err := call(g.writeCtx(ctx, note), g, drafts.Stage, in)
		if err != nil {
			return failCLI(g, stderr, err)
		}
		return emitStaged(g, stdout, res)
	}
}

func emitStaged(g *factory, stdout io.Writer, res any) int {
	return emit(g, stdout, res, func(w io.Writer) {
		if path, id, ok := replayed(res); ok {
			fmt.Fprintf(w, "staged %s (%s) — this command ran before: its result again, nothing written twice\n", path, id)
		}
		if r, ok := res.(*api.StageResult); ok {
			if r.Repository != "" {
				fmt.Fprintf(w, "staged %s in the nested repository %s (%s)\n", r.Path, r.Repository, r.Entry.ID)
			} else {
				fmt.Fprintf(w, "staged %s (%s)\n", r.Path, r.Entry.ID)
			}
			for _, n := range r.Notes {
				fmt.Fprintln(w, "  "+n)
			}
		}
		fmt.Fprintln(w, "staged, not committed: review and commit as usual")
	})
}

// runNewCmd is `kontext new <kind> "<title>" [--path P]… [--tag T]…
// [--supersedes ID]… [--summary S] [--body B]`.
func runNewCmd(g *factory, fs *pflag.FlagSet) runFunc {
	return stageEntryCmd(g, fs, "new", false)
}

// runSupersedeCmd is `kontext supersede <id> "<new title>" [--path P]…`:
// stages a new entry that supersedes id.
func runSupersedeCmd(g *factory, fs *pflag.FlagSet) runFunc {
	return stageEntryCmd(g, fs, "supersede", true)
}

// runRetireCmd is `kontext retire <id> --reason "…"`: the entry's current
// revision is read first, then it is retired (status deprecated).
func runRetireCmd(g *factory, fs *pflag.FlagSet) runFunc {
	reason := fs.String("reason", "", "why the entry no longer applies")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		pos := args
		if len(pos) != 1 || strings.TrimSpace(*reason) == "" {
			return usageErr(g, stderr, "usage: kontext retire <id> --reason \"…\"")
		}
		// Derived from what the user typed, not from the revision read
		// below: the revision changes when the retirement lands, and a
		// rerun must find this write's receipt.
		opID := derivedOperationID("retire", map[string]string{"entry": pos[0], "reason": *reason})
		done, pending, err := priorWrite(ctx, g, opID)
		if err != nil {
			return failCLI(g, stderr, err)
		} else if done != nil {
			return emitStaged(g, stdout, done)
		}
		in := &api.RetireInput{}
		if ok, err := storedRequest(g, opID, in); err != nil {
			return failCLI(g, stderr, err)
		} else if !ok || !pending {
			en, err := read(ctx, g, (*engine.Engine).Get, &api.GetInput{ID: pos[0]})
			if err != nil {
				return failCLI(g, stderr, err)
			}
			in = &api.RetireInput{OperationID: opID, EntryID: en.ID, EntryRevision: en.Revision, Reason: *reason}
		}
		res, err := call(g.writeCtx(ctx, ""), g, drafts.Retire, in)
		if err != nil {
			return failCLI(g, stderr, err)
		}
		return emitStaged(g, stdout, res)
	}
}
