package slt

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// KnownFailures maps a record ("<file>:<line>") to why it is expected to fail.
// A test run passes iff every failure is listed and every listed record of
// the files that ran still fails, so the list can only shrink.
type KnownFailures map[string]string

// KnownKey is the key of a record in a KnownFailures list.
func KnownKey(file string, line int) string { return file + ":" + strconv.Itoa(line) }

// ReadKnown reads a list written by WriteKnown; a missing file is empty.
// Format: one "<file>:<line> <reason>" per line; '#' starts a comment line.
func ReadKnown(path string) (KnownFailures, error) {
	k := KnownFailures{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return k, nil
	} else if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		key, reason, _ := strings.Cut(line, " ")
		if i := strings.LastIndexByte(key, ':'); i <= 0 || !isDigits(key[i+1:]) {
			return nil, fmt.Errorf("%s:%d: want <file>:<line> <reason>, got %q", path, n, line)
		}
		k[key] = reason
	}
	return k, sc.Err()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Check compares a file's result with the list: unexpected are failures
// not listed, fixed are listed lines of file that now pass. Records that
// did not run (Result.NotRun) are neither.
func (k KnownFailures) Check(file string, res *Result) (unexpected []Failure, fixed []int) {
	failed := map[int]bool{}
	for _, n := range res.NotRun {
		failed[n] = true
	}
	for _, f := range res.Failures {
		failed[f.Line] = true
		if _, ok := k[KnownKey(file, f.Line)]; !ok {
			unexpected = append(unexpected, f)
		}
	}
	prefix := file + ":"
	for key := range k {
		if rest, ok := strings.CutPrefix(key, prefix); ok && isDigits(rest) {
			n, _ := strconv.Atoi(rest)
			if !failed[n] {
				fixed = append(fixed, n)
			}
		}
	}
	slices.Sort(fixed)
	return unexpected, fixed
}

// Set replaces file's entries with res's failures, keeping the reason of an
// entry that still fails. Entries of records that did not run
// (Result.NotRun) are kept as they are: nothing is known of them.
func (k KnownFailures) Set(file string, res *Result) {
	prefix := file + ":"
	notRun := map[int]bool{}
	for _, n := range res.NotRun {
		notRun[n] = true
	}
	old := map[string]string{}
	for key, reason := range k {
		if rest, ok := strings.CutPrefix(key, prefix); ok && isDigits(rest) {
			if n, _ := strconv.Atoi(rest); !notRun[n] {
				old[key] = reason
				delete(k, key)
			}
		}
	}
	for _, f := range res.Failures {
		key := KnownKey(file, f.Line)
		if reason, ok := old[key]; ok {
			k[key] = reason // keep a hand-written reason of a record that still fails
		} else {
			k[key] = truncate(f.Reason, 100)
		}
	}
}

// Orphans returns the entries whose file is not in files (sorted): they
// can never be checked, so they are as stale as a record that passes.
func (k KnownFailures) Orphans(files []string) []string {
	in := map[string]bool{}
	for _, f := range files {
		in[f] = true
	}
	var out []string
	for key := range k {
		if !in[key[:strings.LastIndexByte(key, ':')]] {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// WriteKnown writes the list sorted by file (in order) and line.
func WriteKnown(path string, k KnownFailures, order []string) error {
	rank := map[string]int{}
	for i, f := range order {
		rank[f] = i
	}
	type ent struct {
		file string
		line int
		key  string
	}
	ents := make([]ent, 0, len(k))
	for key := range k {
		i := strings.LastIndexByte(key, ':')
		n, _ := strconv.Atoi(key[i+1:])
		ents = append(ents, ent{key[:i], n, key})
	}
	slices.SortFunc(ents, func(a, b ent) int {
		ra, oka := rank[a.file]
		rb, okb := rank[b.file]
		switch {
		case oka && okb && ra != rb:
			return ra - rb
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		case a.file != b.file:
			return strings.Compare(a.file, b.file)
		}
		return a.line - b.line
	})
	var b strings.Builder
	b.WriteString("# sqllogictest records expected to fail: <file>:<line> <reason>.\n")
	b.WriteString("# Regenerate with: go test ./server/slt -run TestSLT -update-known\n")
	for _, e := range ents {
		fmt.Fprintf(&b, "%s %s\n", e.key, k[e.key])
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
