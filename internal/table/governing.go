package table

import (
	"io"
	"strconv"
)

// Governed is one entry of a governing answer as the listing shows it.
type Governed struct {
	Kind, ID, Title string
	Status          *string
	Authority       bool
	Matches         []Match
}

// Match is one path an entry governs, with the rule that matched.
type Match struct {
	Path, Rule  string
	Specificity int
}

// Boundary is a requested path inside a nested repository.
type Boundary struct {
	Path, Repository, RepositoryPath string
}

// Style is how a listing is printed: the output's width (0: no limit), its
// painter (nil: no colour) and the short forms of entry ids (nil: none).
type Style struct {
	Width int
	Paint func(code, s string) string
	Short func() map[string]string
}

// Governing writes the human listing of a governing answer: per requested
// path the entries that govern it (specificity, kind, id, title, rule),
// the nested repository it lies in, and a footer naming the columns.
func Governing(w io.Writer, st Style, paths []string, entries []Governed, bounds []Boundary) {
	for _, p := range paths {
		io.WriteString(w, p+"\n")
		t := Headless(w, st.Width, st.Paint, 5)
		t.Indent, t.IDCol, t.FlexCol, t.Colors[0], t.Colors[2] = "  ", 2, 3, "32", "36"
		t.Short = st.Short
		n := 0
		for _, e := range entries {
			for _, m := range e.Matches {
				if m.Path != p {
					continue
				}
				n++
				note := ""
				if !e.Authority {
					status := "no status"
					if e.Status != nil {
						status = *e.Status
					}
					note = " (" + status + ", no authority)"
				}
				t.Row(strconv.Itoa(m.Specificity), e.Kind, e.ID, e.Title+note, m.Rule)
			}
		}
		t.Render()
		if n == 0 {
			io.WriteString(w, "  no entry governs this path\n")
		}
		for _, b := range bounds {
			if b.Path == p {
				io.WriteString(w, "  inside the nested repository "+b.Repository+", whose own knowledge governs it: kontext -C "+b.Repository+" governing "+b.RepositoryPath+"\n")
			}
		}
	}
	io.WriteString(w, "\ncolumns: specificity, kind, id, title, matching rule\n")
}
