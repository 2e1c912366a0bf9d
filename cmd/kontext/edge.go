package main

import (
	"context"
	"fmt"
	"github.com/spf13/pflag"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/internal/bundle"
	"github.com/kontext/kontext/internal/edge"
	"github.com/kontext/kontext/internal/review"
)

type edgeBuildResult struct {
	Dir     string          `json:"dir"`
	Name    string          `json:"name"`
	Repos   []edgeRepoBrief `json:"repos"`
	Files   []string        `json:"files"`
	Bytes   int64           `json:"bytes"`
	Gzip    int64           `json:"gzip_bytes"`
	FreeMax int64           `json:"free_plan_limit_bytes"`
	PaidMax int64           `json:"paid_plan_limit_bytes"`
	// WranglerNew: wrangler.toml was edited, kept, and the new one
	// written as wrangler.toml.new.
	WranglerNew bool     `json:"wrangler_new"`
	Notes       []string `json:"notes"`
}

type edgeRepoBrief struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	Default bool   `json:"default"`
}

// The Workers size limits on the compressed upload.
const (
	workersFreeLimit = 3 << 20
	workersPaidLimit = 10 << 20
)

// runEdgeBuild is kontext edge build: a deployable Worker directory
// (governing lookups over HTTP on workerd / Cloudflare Workers) from
// knowledge bundles.
func runEdgeBuild(g *factory, fs *pflag.FlagSet) runFunc {
	out := fs.StringP("output", "o", "", "the deployable directory `DIR` to write")
	name := fs.String("name", "kontext-edge", "the Worker's name in wrangler.toml")
	storeOnly := fs.Bool("store-only", false, "no bundled repository: every one is read from the KONTEXT_STORE binding")
	force := fs.Bool("force", false, "write into a non-empty directory an edge build did not write, and over files there (other files are kept; an edited wrangler.toml never)")
	var bundles multiFlag
	fs.Var(&bundles, "bundle", "[NAME=]FILE: a bundle from kontext bundle (repeatable; the first is the default repository)")
	return func(ctx context.Context, pos []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		if len(pos) > 0 {
			return usageErr(g, stderr, "kontext edge build takes no arguments (got %q); name bundles with --bundle", pos[0])
		}
		if *out == "" {
			return usageErr(g, stderr, "kontext edge build needs -o DIR (the deployable directory)")
		}
		repos, err := edge.ReadRepos(bundles)
		if err != nil {
			return fail(g, stderr, err)
		}
		res, err := edge.Build(edge.Options{Out: *out, Name: *name, Repos: repos, Assets: review.Assets(), StoreOnly: *storeOnly, Force: *force})
		if err != nil {
			return fail(g, stderr, err)
		}
		r := edgeBuildResult{Dir: res.Dir, Name: *name, Files: res.Files, Bytes: res.Bytes, Gzip: res.Gzip, FreeMax: workersFreeLimit, PaidMax: workersPaidLimit,
			WranglerNew: res.WranglerNew, Notes: res.Notes}
		if r.Notes == nil {
			r.Notes = []string{}
		}
		for i, rp := range repos {
			r.Repos = append(r.Repos, edgeRepoBrief{Name: rp.Name, File: rp.File, Default: i == 0})
		}
		return emit(g, stdout, r, func(w io.Writer) {
			names := make([]string, len(repos))
			for i, rp := range repos {
				names[i] = rp.Name
			}
			if len(repos) == 0 {
				fmt.Fprintf(w, "wrote %s: worker %s, no bundled repository (set KONTEXT_STORE and KONTEXT_STORE_REPOS)\n", res.Dir, *name)
			} else {
				fmt.Fprintf(w, "wrote %s: worker %s, %d repositories (%s; default %s)\n", res.Dir, *name, len(repos), strings.Join(names, ", "), repos[0].Name)
			}
			fmt.Fprintf(w, "size: %d bytes, %d gzip (Workers limits: 3 MB free plan, 10 MB paid)\n", res.Bytes, res.Gzip)
			if res.Gzip > workersFreeLimit {
				fmt.Fprintf(w, "warning: over the free plan's 3 MB: deploy on a paid plan, or serve fewer repositories from the bundle and the rest from KONTEXT_STORE\n")
			}
			for _, n := range res.Notes {
				fmt.Fprintf(w, "note: %s\n", n)
			}
			fmt.Fprintf(w, "deploy: cd %s && npx wrangler deploy\n", res.Dir)
		})
	}
}

func runEdgeServe(g *factory, fs *pflag.FlagSet) runFunc {
	port := fs.Int("port", 8787, "port on 127.0.0.1 (0 = any free port)")
	store := fs.String("store", "", "a directory served as the KONTEXT_STORE KV namespace (key repos.json is DIR/repos.json, <name>/index.json is DIR/<name>/index.json)")
	var bundles multiFlag
	fs.Var(&bundles, "bundle", "[NAME=]FILE: a bundle from kontext bundle (repeatable; the first is the default repository)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		pos := args
		if len(pos) > 0 {
			return usageErr(g, stderr, "kontext edge serve takes no arguments (got %q); name bundles with --bundle", pos[0])
		}
		if *port < 0 || *port > 65535 {
			return usageErr(g, stderr, "--port %d is not a port (0-65535)", *port)
		}
		if len(bundles) == 0 && *store == "" {
			return usageErr(g, stderr, "kontext edge serve needs --bundle [NAME=]FILE (write one with kontext bundle -o FILE) or --store DIR")
		}
		repos, err := edge.ReadRepos(bundles)
		if err != nil {
			return fail(g, stderr, err)
		}
		bindings := map[string]string{}
		for _, k := range []string{"KONTEXT_TOKEN", "KONTEXT_CORS_ORIGINS", "KONTEXT_STORE_REPOS", "KONTEXT_MEMORY_MB", "KONTEXT_DEBUG"} {
			if v := os.Getenv(k); v != "" {
				bindings[k] = v
			}
		}
		_, statErr := os.Stat(filepath.Join(*store, edge.ReposKey))
		published := *store != "" && statErr == nil // the layout of kontext edge publish
		if *store != "" && bindings["KONTEXT_STORE_REPOS"] == "" && !published {
			names, err := storeRepos(*store)
			if err != nil {
				return fail(g, stderr, err)
			}
			bindings["KONTEXT_STORE_REPOS"] = strings.Join(names, ",")
		} else if *store != "" {
			if fi, err := os.Stat(*store); err != nil || !fi.IsDir() {
				return usageErr(g, stderr, "--store %s is not a directory", *store)
			}
		}
		bin, err := edge.FindWorkerd(".", os.Getenv)
		if err != nil {
			return fail(g, stderr, err)
		}
		if *port == 0 {
			if *port, err = edge.FreePort(); err != nil {
				return fail(g, stderr, apierr.Wrap(apierr.OperationFailed, err, "finding a free port"))
			}
		}
		tmp, err := os.MkdirTemp("", "kontext-edge-")
		if err != nil {
			return fail(g, stderr, err)
		}
		defer os.RemoveAll(tmp)
		dir := filepath.Join(tmp, "worker")
		if _, err := edge.Build(edge.Options{Out: dir, Repos: repos, Assets: review.Assets(), StoreOnly: *store != ""}); err != nil {
			return fail(g, stderr, err)
		}
		err = edge.Serve(ctx, edge.ServeOptions{
			Dir: dir, Port: *port, Bindings: bindings, Store: *store, Workerd: bin, Stderr: stderr,
			Ready: func(url string) {
				fmt.Fprintf(stdout, "kontext edge: %s  (workerd %s; Ctrl-C stops)\n", url, bin)
				if f, ok := stdout.(*os.File); ok {
					f.Sync()
				}
			},
		})
		if err != nil {
			return fail(g, stderr, err)
		}
		return exitOK
	}
}

// storeRepos lists the repositories a --store directory holds: its
// subdirectories with a snapshot file.
func storeRepos(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, apierr.Wrap(apierr.InvalidInput, err, "--store %s", dir)
	}
	var names []string
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "snapshot")); e.IsDir() && err == nil {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, apierr.Invalid("--store %s holds no repository (no repos.json, and no <name>/snapshot and <name>/bundle files of the earlier layout); or set KONTEXT_STORE_REPOS", dir)
	}
	return names, nil
}

// runEdgePublish is kontext edge publish: this repository's bundle (built
// unless --bundle names one) into the edge worker's KV store through
// wrangler, with the user's wrangler credentials (nothing is stored by
// kontext).
func runEdgePublish(g *factory, fs *pflag.FlagSet) runFunc {
	repo := fs.String("repo", "", "the repository's `NAME` in the store (the worker serves it at /v1/repos/NAME/…)")
	file := fs.String("bundle", "", "a bundle `FILE` from kontext bundle (default: build one from HEAD)")
	nsID := fs.String("namespace-id", "", "the KV namespace's `ID`")
	binding := fs.String("binding", "", "the KV namespace's binding `NAME` in a wrangler config (KONTEXT_STORE)")
	config := fs.String("config", "", "the wrangler config `FILE` that declares --binding")
	local := fs.Bool("local", false, "write wrangler's local storage (for wrangler dev), not the remote namespace")
	persist := fs.String("persist-to", "", "the `DIR` of wrangler's local storage (with --local)")
	return func(ctx context.Context, args []string) int {
		stdout, stderr := g.io.Out, g.io.ErrOut
		if len(args) > 0 {
			return usageErr(g, stderr, "kontext edge publish takes no arguments (got %q); name the repository with --repo NAME", args[0])
		}
		if *repo == "" {
			return usageErr(g, stderr, "kontext edge publish needs --repo NAME (the repository's name in the store)")
		}
		if err := edge.CheckRepoName(*repo); err != nil {
			return fail(g, stderr, err)
		}
		if (*nsID == "") == (*binding == "") {
			return usageErr(g, stderr, "kontext edge publish needs the KV namespace: --namespace-id ID or --binding NAME (one of them)")
		}
		if *config != "" && *binding == "" {
			return usageErr(g, stderr, "--config names the wrangler config that declares --binding: pass --binding NAME with it")
		}
		if *persist != "" && !*local {
			return usageErr(g, stderr, "--persist-to is wrangler's local storage: pass --local with it")
		}
		var data []byte
		var warnings []string // the bundle's, when built here
		if *file != "" {
			var err error
			if data, err = os.ReadFile(*file); err != nil {
				return fail(g, stderr, apierr.Wrap(apierr.InvalidInput, err, "--bundle %s: cannot read the bundle", *file))
			}
		} else {
			g.prog.state("building the bundle")
			b, err := bundle.Build(ctx, bundle.Options{Dir: g.dir, Progress: g.prog.engineProgress()})
			if err != nil {
				return fail(g, stderr, err)
			}
			if data, err = bundle.Marshal(b); err != nil {
				return fail(g, stderr, err)
			}
			warnings = b.Warnings
		}
		bin, err := edge.FindWrangler(".", os.Getenv)
		if err != nil {
			return fail(g, stderr, err)
		}
		g.prog.state("publishing through wrangler")
		res, err := edge.Publish(ctx, edge.PublishOptions{Repo: *repo, Bundle: data, NamespaceID: *nsID, Binding: *binding, Config: *config,
			Local: *local, PersistTo: *persist, Wrangler: bin})
		if err != nil {
			return fail(g, stderr, err)
		}
		if !g.prog.jsonlErr() {
			bundleWarnings(stderr, warnings)
		}
		return emit(g, stdout, res, func(w io.Writer) {
			where := "the remote namespace"
			if *local {
				where = "wrangler's local storage"
				if *persist != "" {
					where += " in " + *persist
				}
			}
			if res.Unchanged {
				fmt.Fprintf(w, "%s: snapshot %s is already published in %s (%d entries); nothing written\n", res.Repo, res.Snapshot, where, res.Entries)
				return
			}
			fmt.Fprintf(w, "%s: published snapshot %s (%d entries) to %s: wrote %s", res.Repo, res.Snapshot, res.Entries, where, strings.Join(res.Written, ", "))
			if len(res.Deleted) > 0 {
				fmt.Fprintf(w, "; deleted %s", strings.Join(res.Deleted, ", "))
			}
			fmt.Fprintln(w)
		})
	}
}
