package api

// ResolvedChallenge is a challenge that a staged write resolved.
type ResolvedChallenge struct {
	ID         string `json:"id"`
	Against    string `json:"against"`
	ResolvedBy string `json:"resolved_by"`
}
