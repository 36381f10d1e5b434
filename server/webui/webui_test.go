package webui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{-1: "?", 0: "0 B", 1023: "1023 B", 1024: "1.0 KB", 1536: "1.5 KB",
		5 << 20: "5.0 MB", 3 << 30: "3.0 GB", 1 << 50: "1.0 PB", 1 << 60: "1024.0 PB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// The embedded assets are served as they are in the repository; the
// vendoring notes are not; the vendored dagre is the version VENDOR.md names.
func TestStaticAssets(t *testing.T) {
	srv := httptest.NewServer(New(nil)) // static files need no login
	defer srv.Close()
	for path, status := range map[string]int{"/static/dagre.min.js": 200, "/static/plan.js": 200, "/static/ui.js": 200,
		"/static/style.css": 200, "/static/dagre.LICENSE": 200, "/static/VENDOR.md": 404, "/static/refresh-dagre.sh": 404} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != status {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, status)
			continue
		}
		if status == 200 {
			disk, err := os.ReadFile(strings.TrimPrefix(path, "/"))
			if err != nil || string(disk) != string(body) {
				t.Errorf("GET %s does not serve the file in the repository (%v)", path, err)
			}
		}
	}
	notes, err := os.ReadFile("static/VENDOR.md")
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`(?m)^version: (\S+)$`).FindSubmatch(notes)
	js, _ := os.ReadFile("static/dagre.min.js")
	if want == nil || !strings.Contains(string(js), `="`+string(want[1])+`"`) {
		t.Errorf("dagre.min.js is not the version VENDOR.md names (%q)", want)
	}
}
