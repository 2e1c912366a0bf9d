package engine

// Spoiled counts the entries of stored compiled snapshots that did not
// decode in e's reads (tests of the spoiled-snapshot retry).
func Spoiled(e *Engine) uint64 { return e.reader.Spoiled() }
