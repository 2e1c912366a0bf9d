package api

// Diagnostic reports a problem with one file. Severity "error" means the
// file is not an entry; "warning" means the entry is listed with what could
// be read; "info" is a note that needs no action.
type Diagnostic struct {
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}
