package main

import (
	"errors"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/kontext/kontext/engine/apierr"
)

// Errors of the human commands speak in CLI words: an API message names
// input fields (`field "entry.paths"`) and operations (entries.get,
// drafts.retire) that a person typing `kontext new` never wrote. This is
// the one table from those names to the flags, arguments and commands
// they came from. Under --json the envelope keeps the API's words: it is
// the machine contract.
var cliFields = map[string]string{
	"entry.kind":       "<kind>",
	"entry.title":      "the title",
	"entry.body":       "the body (--body, stdin or $EDITOR)",
	"entry.summary":    "--summary",
	"entry.paths":      "--path",
	"entry.tags":       "--tag",
	"entry.status":     "--status",
	"entry.supersedes": "--supersedes",
	"entry.extends":    "--extends",
	"entry.verify":     "--verify",
	"entry.visibility": "--visibility",
	"entry_id":         "<id>",
	"id":               "<id>",
	"status":           "the status",
	"reason":           "--reason",
	"because":          "--because",
	"base":             "--base",
	"head":             "--head",
	"kinds":            "--kind",
	"kind":             "--kind",
	"paths":            "<path>",
	"requested_path":   "--path",
}

// cliPhrases rewrite the operations a message points to into the commands
// that do the same.
var cliPhrases = []struct{ api, cli string }{
	{"read it again (entries.get) and retry with its current revision", "run the command again: it reads the current revision"},
	{"drafts.stage with entry.supersedes", "kontext supersede <id> \"<new title>\""},
	{"entries.get", "kontext show <id>"},
	{"entries.list", "kontext list"},
	{"drafts.retire", "kontext retire <id> --reason \"…\""},
	{"drafts.set_status", "kontext accept <id> / kontext reject <id>"},
	{"set one with drafts.set_verify", "add a verify: line to the entry (its front matter, or Verify: in an ADR) and commit it"},
	{"drafts.extend", "kontext extend <id> \"<text>\""},
	{"drafts.capture", "kontext capture"},
}

var fieldRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`field "([A-Za-z_.\[\]0-9]+)"`) })

// inCLIWords returns err with its message in CLI words (the code and
// extra fields unchanged).
func inCLIWords(err error) error {
	var ae *apierr.Error
	if err == nil || !errors.As(err, &ae) {
		return err
	}
	msg := fieldRE().ReplaceAllStringFunc(ae.Message, func(m string) string {
		name := fieldRE().FindStringSubmatch(m)[1]
		if w, ok := cliFields[name]; ok {
			return w
		}
		return m
	})
	for _, p := range cliPhrases {
		msg = strings.ReplaceAll(msg, p.api, p.cli)
	}
	if msg == ae.Message {
		return err
	}
	c := *ae
	c.Message = msg
	return &c
}

// failCLI reports err like fail, which puts every human command's error
// line in CLI words (--json keeps the API envelope).
func failCLI(g *factory, stderr io.Writer, err error) int {
	return fail(g, stderr, err)
}
