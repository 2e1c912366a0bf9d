// Package kontext is the Go embedding API of the kontext knowledge engine:
// the one package an application imports. It opens a repository on disk
// (or a file set in memory), answers any operation of the JSON application
// API with the same envelope as `kontext api`, offers typed reads over the
// data types of engine/api, and the pure policy API (PolicyFromConfig,
// Policy.Inspect, ConfigCandidates).
//
// Every call goes through the engine's one operation dispatcher, the same
// road the CLI, the MCP server, the WASM engine and the edge worker take.
// Its signatures name only the standard library, engine/api (data) and
// engine/apierr (the error type): the engine's internal packages never
// appear in them.
package kontext

import (
	"context"
	"sort"

	"github.com/go-git/go-billy/v5/memfs"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/native"
)

// Error is the error every call returns: it carries the API's error code
// (Error.Code, e.g. "invalid_input") and a message for the user.
type Error = apierr.Error

// Request runs one API operation against the repository containing dir and
// returns the JSON envelope, exactly as `kontext -C dir api operation`
// prints it. An input field "dir" overrides dir (relative to it).
func Request(ctx context.Context, dir, operation string, input []byte) []byte {
	return native.Request(ctx, dir, operation, input)
}

// Repo is one opened knowledge base: a repository on disk (Open) or a file
// set in memory (OpenFiles). It is safe for concurrent use.
type Repo struct {
	e *engine.Engine
}

// Open opens the worktree containing dir. Every operation is served,
// writes included (they stage into git's index, never commit). A directory
// outside any git repository is read as a plain file set.
func Open(dir string) (*Repo, error) {
	e, err := native.Open(dir)
	if err != nil {
		return nil, err
	}
	return &Repo{e: e}, nil
}

// OpenFiles opens a knowledge base over files (repository-relative,
// "/"-separated path → text) held in memory, as the WASM engine does: the
// read operations are served, writes and history are not
// (unsupported_operation). revision is reported as publication.revision
// ("" for none).
func OpenFiles(files map[string]string, revision string) (*Repo, error) {
	fs := memfs.New()
	e := engine.New(engine.Options{FS: fs, Surface: engine.Snapshot, Revision: revision})
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p, err := e.RepoPath(name)
		if err != nil {
			return nil, err
		}
		f, err := fs.Create(p)
		if err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "cannot hold %s in memory", p)
		}
		_, werr := f.Write([]byte(files[name]))
		cerr := f.Close()
		if werr != nil || cerr != nil {
			return nil, apierr.New(apierr.OperationFailed, "cannot hold %s in memory", p)
		}
	}
	return &Repo{e: e}, nil
}

// Request runs one API operation and returns its JSON envelope.
func (r *Repo) Request(ctx context.Context, operation string, input []byte) []byte {
	return r.e.Request(ctx, operation, input)
}

// Status answers status.
func (r *Repo) Status(ctx context.Context) (*api.StatusResult, error) { return r.e.Status(ctx) }

// List answers entries.list.
func (r *Repo) List(ctx context.Context, in *api.ListInput) (*api.ListResult, error) {
	return r.e.List(ctx, in)
}

// Get answers entries.get.
func (r *Repo) Get(ctx context.Context, in *api.GetInput) (*api.Entry, error) {
	return r.e.Get(ctx, in)
}

// Search answers entries.search.
func (r *Repo) Search(ctx context.Context, in *api.SearchInput) (*api.SearchResult, error) {
	return r.e.Search(ctx, in)
}

// Governing answers entries.governing: which entries govern these paths,
// and why.
func (r *Repo) Governing(ctx context.Context, in *api.GoverningInput) (*api.GoverningResult, error) {
	return r.e.Governing(ctx, in)
}

// Lint answers rules.lint: duplicate, near-duplicate and contradicting
// agent rule files, and files a client never loads.
func (r *Repo) Lint(ctx context.Context, in *api.LintInput) (*api.LintResult, error) {
	return r.e.Lint(ctx, in)
}

// Related answers entries.related (without a model unless the input asks
// for one and a local model is configured).
func (r *Repo) Related(ctx context.Context, in *api.RelatedInput) (*api.RelatedResult, error) {
	return r.e.Related(ctx, in)
}

// Drift answers entries.drift (a repository on disk only).
func (r *Repo) Drift(ctx context.Context, in *api.DriftInput) (*api.DriftResult, error) {
	return r.e.Drift(ctx, in)
}

// Changed answers entries.changed between two revisions (a repository on
// disk only).
func (r *Repo) Changed(ctx context.Context, in *api.ChangedInput) (*api.ChangedResult, error) {
	return r.e.ChangedBetween(ctx, in)
}

// Export answers entries.export.
func (r *Repo) Export(ctx context.Context, in *api.ExportInput) (*api.ExportResult, error) {
	return r.e.Export(ctx, in)
}

// ConfigCandidates returns the committed configuration files in lookup
// order.
func ConfigCandidates() []string { return engine.ConfigCandidates() }

// Policy is a reviewed configuration: it decides which files are entries,
// how they parse, and whether they carry team authority. It reads no files
// and runs no models, so a service can check its own git mirror with it.
type Policy struct {
	p *engine.Policy
}

// PolicyFromConfig builds a policy from reviewed configuration text; nil
// text means the defaults with storage as the knowledge directory
// ("" = ".ai").
func PolicyFromConfig(storage string, configText []byte) (*Policy, error) {
	p, err := engine.PolicyFromConfig(storage, configText)
	if err != nil {
		return nil, err
	}
	return &Policy{p: p}, nil
}

// CommittedEntry is what Inspect returns for one verified blob.
type CommittedEntry = api.CommittedEntry

// Inspect parses text as the file at path (repository-relative) under the
// policy. A path outside every configured source, a file that is not a
// record, or an unparseable file is invalid_input.
func (p *Policy) Inspect(path string, text []byte) (*CommittedEntry, error) {
	return p.p.Inspect(path, text)
}
