package git

// OffsetVarint decodes git's offset varint (index v4 name prefixes): the
// value and how many bytes it took (0 when b ends first or it overflows).
func OffsetVarint(b []byte) (int, int) { return offsetVarint(b) }
