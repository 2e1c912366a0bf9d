package detect

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/internal/config"
)

// AppendConfig returns text with an include table appended for every
// source that is not Configured, and whether anything was appended. The
// existing text is kept byte for byte (a missing final newline is
// added); running it again with the same sources appends nothing. The
// result must parse: a configuration that cannot take the tables (an
// inline include array) is invalid_input naming what to add by hand.
func AppendConfig(file string, text []byte, sources []Source) ([]byte, bool, error) {
	var add bytes.Buffer
	for _, s := range sources {
		if s.Configured {
			continue
		}
		fmt.Fprintf(&add, "\n[[kinds.%s.include]]\ndir = %s\nstyle = %q\n", s.Kind, tomlString(s.Dir), s.Style)
	}
	if add.Len() == 0 {
		return text, false, nil
	}
	out := append([]byte{}, text...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = append(out, "\n# Found by kontext setup: knowledge this repository already keeps (read-only sources).\n"...)
	out = append(out, bytes.TrimPrefix(add.Bytes(), []byte("\n"))...)
	if _, err := config.Parse(file, out); err != nil {
		return nil, false, apierr.Wrap(apierr.InvalidInput, err, "%s cannot take the detected sources as [[kinds.<kind>.include]] tables; add them by hand:\n%s", file, add.String())
	}
	return out, true, nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}
