package api

// SupersedeRepaired is one entry whose file got back its reciprocal
// supersede metadata (drafts.confirm {repair: true}).
type SupersedeRepaired struct {
	ID           string   `json:"id"`
	Path         string   `json:"path"`
	SupersededBy []string `json:"superseded_by"`
}
