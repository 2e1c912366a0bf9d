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
	store := fs.String("store", "", "a directory served as the KONTEXT_STORE KV namespace (key <name>/snapshot is DIR/<name>/snapshot)")
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
		for _, k := range []string{"KONTEXT_TOKEN", "KONTEXT_CORS_ORIGINS", "KONTEXT_STORE_REPOS"} {
			if v := os.Getenv(k); v != "" {
				bindings[k] = v
			}
		}
		if *store != "" && bindings["KONTEXT_STORE_REPOS"] == "" {
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
		return nil, apierr.Invalid("--store %s holds no repository (no <name>/snapshot and <name>/bundle files); or set KONTEXT_STORE_REPOS", dir)
	}
	return names, nil
}
