package engine

import (
	"strings"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/config"
	"github.com/kontext/kontext/engine/internal/entry"
)

// ConfigCandidates returns the committed config files in lookup order.
func ConfigCandidates() []string { return config.Candidates() }

// Policy is a KnowledgePolicy: a reviewed configuration that decides which
// files are entries, how they parse, and whether they carry authority. It
// reads no files and runs no models.
type Policy struct {
	cfg *config.Config
}

// PolicyFromConfig builds a policy from reviewed config text; nil text
// means the defaults with storage as the knowledge directory ("" = ".ai").
func PolicyFromConfig(storage string, configText []byte) (*Policy, error) {
	if storage == "" {
		storage = config.DefaultStorage
	}
	clean, err := config.CleanDir(storage)
	if err != nil || clean == "" {
		return nil, apierr.Invalid("storage %q is not a directory inside the repository", storage)
	}
	if configText == nil {
		return &Policy{cfg: config.DefaultsAt(clean)}, nil
	}
	cfg, err := config.ParseAt("config", configText, clean)
	if err != nil {
		return nil, err
	}
	return &Policy{cfg: cfg}, nil
}

// Inspect parses text as the file at path (repo-relative) under the
// policy. A path outside every configured source, a file that is not a
// record, or an unparseable file is invalid_input.
func (p *Policy) Inspect(path string, text []byte) (*api.CommittedEntry, error) {
	rel := strings.TrimPrefix(strings.TrimPrefix(strings.ReplaceAll(path, "\\", "/"), "./"), "/")
	src, ok := p.sourceOf(rel)
	if !ok {
		return nil, apierr.Invalid("%s is not inside a configured knowledge directory", rel)
	}
	if !entry.IsRecordFile(rel, src) {
		return nil, apierr.Invalid("%s is not an entry file of a %s-style source (README, index and template files are not records)", rel, src.Style)
	}
	en, diags := entry.Parse(rel, text, src)
	if diags == nil {
		diags = []api.Diagnostic{}
	}
	if en == nil {
		msg := "file is not an entry"
		if len(diags) > 0 {
			msg = diags[0].Code + ": " + diags[0].Message
		}
		err := apierr.Invalid("%s: %s", rel, msg)
		err.Extra = map[string]any{"diagnostics": diags}
		return nil, err
	}
	return &api.CommittedEntry{
		ID: en.ID, Kind: en.Kind, Title: en.Title, Body: en.Body, Summary: strp(en.Summary),
		Status: strp(en.Status), Checked: strp(en.Checked), Date: strp(en.Date), Verify: strp(en.Verify),
		ReviewBy: strp(en.ReviewBy), Supersedes: nonNil(en.Supersedes), Paths: nonNil(en.Paths),
		Tags: nonNil(en.Tags), File: en.File, Style: en.Style, Authority: authority(en), Extra: en.Extra,
		Diagnostics: diags,
	}, nil
}

// sourceOf finds the source whose directory holds rel; the deepest wins.
func (p *Policy) sourceOf(rel string) (entry.Source, bool) {
	var best entry.Source
	found := false
	for _, s := range p.cfg.Sources() {
		if s.Dir != "" && !strings.HasPrefix(rel, s.Dir+"/") {
			continue
		}
		if !found || len(s.Dir) > len(best.Dir) {
			best, found = s, true
		}
	}
	return best, found
}

// PolicySource is one source directory of a policy: where entries of a kind
// are read from, in which style.
type PolicySource struct {
	Dir      string `json:"dir"`
	Kind     string `json:"kind"`
	Style    string `json:"style"`
	ReadOnly bool   `json:"read_only"`
}

// Layout is where a knowledge base keeps its files under a policy: what a
// reader must load to open it from a directory (the npm package's
// openDirectory).
type Layout struct {
	ConfigCandidates []string       `json:"config_candidates"`
	Storage          string         `json:"storage"`
	Sources          []PolicySource `json:"sources"`
	Overlay          string         `json:"overlay"`
	Ledger           string         `json:"ledger"`
}

// Layout returns the policy's config candidates, storage, sources, overlay
// and ledger paths.
func (p *Policy) Layout() Layout {
	out := Layout{ConfigCandidates: config.Candidates(), Storage: p.cfg.Storage, Overlay: p.cfg.Overlay(), Ledger: p.cfg.Ledger(), Sources: []PolicySource{}}
	for _, s := range p.cfg.Sources() {
		dir := s.Dir
		if dir == "" {
			dir = "."
		}
		out.Sources = append(out.Sources, PolicySource{Dir: dir, Kind: s.Kind, Style: s.Style, ReadOnly: s.ReadOnly})
	}
	return out
}

// Reads reports whether the policy reads the file at rel (repo-relative) as
// an entry file: it lies in a source (or is the file a source names) and
// the source's style reads files of its name.
func (p *Policy) Reads(rel string) bool {
	rel = strings.TrimPrefix(strings.TrimPrefix(strings.ReplaceAll(rel, "\\", "/"), "./"), "/")
	for _, s := range p.cfg.Sources() {
		if s.Dir == rel || s.Dir == "" || s.Dir == "." || strings.HasPrefix(rel, s.Dir+"/") {
			if src, ok := p.sourceOf(rel); ok && entry.IsRecordFile(rel, src) {
				return true
			}
			if s.Dir == rel && entry.IsRecordFile(rel, s) {
				return true
			}
		}
	}
	return false
}
