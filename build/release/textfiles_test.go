package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/kontext/kontext/internal/testrepo"
)

// TestTextFilesCoverReadmeLinks checks that every archive carries the
// guides the README links to, so the README's links work in an unpacked
// release.
func TestTextFilesCoverReadmeLinks(t *testing.T) {
	root := testrepo.Root()
	names, err := textFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`\]\((docs/[^)#]+\.md)`).FindAllStringSubmatch(string(readme), -1)
	if len(links) == 0 {
		t.Fatal("the README links to no guide in docs/")
	}
	for _, l := range links {
		if !slices.Contains(names, l[1]) {
			t.Errorf("the README links to %s, which the archives do not carry (have %v)", l[1], names)
		}
	}
	for _, want := range []string{"LICENSE-MIT", "LICENSE-APACHE", "README.md"} {
		if !slices.Contains(names, want) {
			t.Errorf("archives lack %s", want)
		}
	}
}
