package parser

// insertOverwrite recognizes Doris's INSERT OVERWRITE TABLE t [PARTITION
// (p, …)] … and returns the statement as INSERT INTO t … for vitess (same
// length elsewhere, so error offsets keep pointing at the user's text).
func insertOverwrite(text string, sig []token) (string, bool) {
	if len(sig) < 3 || !sig[0].is("INSERT") || !sig[1].is("OVERWRITE") {
		return "", false
	}
	end := sig[1].end
	if sig[2].is("TABLE") {
		end = sig[2].end
	}
	// "OVERWRITE TABLE" (or "OVERWRITE") becomes "INTO" padded with spaces.
	repl := "INTO"
	for len(repl) < end-sig[1].pos {
		repl += " "
	}
	return text[:sig[1].pos] + repl + text[end:], true
}
