package chunkmem

// equalSafe is Equal's safe twin: the strings compared by value, which the runtime settles by
// their address first, in a call.
func equalSafe(a, b string) bool { return a == b }
