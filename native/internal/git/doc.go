// Package git is kontext's one git object layer. It owns:
//
//   - the object database (Objects): packed objects read straight from
//     memory-mapped pack files (idx v2 and v1 lookup, zlib inflate,
//     OFS/REF delta chains with a cache of resolved objects) and loose
//     objects, in the repository's object directory and its alternates; a
//     pack that appears while it is open (a fetch, a gc) is mapped when an
//     object is missing;
//   - the object parsers: commits (tree, parents, author name, committer
//     time, subject; headers at git's canonical positions), annotated tag
//     targets and trees (streaming RawEntry iteration for the differ, a
//     parsed Tree with binary-search lookup and go-git-compatible path
//     lookup for callers that look paths up, and LookupPaths, which
//     scans raw trees along the directories of a set of paths);
//   - the tree differ (Differ): `git diff-tree -r --no-renames` semantics
//     reported path by path to a callback, equal subtrees skipped by hash;
//   - refs (Refs): loose refs (per-worktree ones in the worktree's git dir,
//     the rest in the common dir), packed-refs and symbolic chains; the
//     shallow list (Shallow) and the common dir of a linked worktree
//     (CommonDir).
//
// internal/history builds the commit index on it and internal/gitrepo
// (engine.Git) answers trees, files, diffs, refs and ancestry with it.
// Of go-git only the plumbing types and codecs stay: the git index and the
// config format (internal/gitrepo and internal/writer, whose index writer
// keeps go-git's index codec for its edge cases). Its storage
// (storage/filesystem) is not linked into the CLI: it pulls go-git's
// repository config, whose URL regexps and packfile machinery cost every
// call start-up time. Tests may still pass it as Objects' fallback to
// compare.
//
// It deliberately avoids go-git's plumbing/object, whose import graph
// (openpgp, circl, x/crypto) costs the CLI start-up time, and go-git's
// packfile reader, whose per-object system calls and hashing cost three
// quarters of a 10,000-commit walk.
package git
