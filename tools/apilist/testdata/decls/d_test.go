package decls

// TestOnly is in a test file.
func TestOnly() {}
