package eval

import (
	"net/url"
	"strings"
)

// URL functions as Doris: parse_url(url, part[, key]) with Hive's part
// names, protocol, domain, domain_without_www, extract_url_parameter. A
// string that is not a URL gives NULL (parse_url) or '' (the others).

var urlKernels = map[string]kernel{
	"parse_url": strKernel(func(r *strRow) (string, bool) {
		u, err := url.Parse(strings.TrimSpace(r.s(0)))
		if err != nil {
			return "", false
		}
		switch strings.ToUpper(r.s(1)) {
		case "PROTOCOL":
			return u.Scheme, u.Scheme != ""
		case "HOST":
			return u.Hostname(), u.Host != ""
		case "PORT":
			return u.Port(), u.Port() != ""
		case "PATH":
			return u.EscapedPath(), true
		case "QUERY":
			if r.n == 3 {
				v, ok := queryParam(u.RawQuery, r.s(2))
				return v, ok
			}
			return u.RawQuery, u.RawQuery != ""
		case "REF":
			return u.EscapedFragment(), u.Fragment != ""
		case "AUTHORITY":
			return u.Host, u.Host != ""
		case "FILE":
			if u.RawQuery != "" {
				return u.EscapedPath() + "?" + u.RawQuery, true
			}
			return u.EscapedPath(), true
		case "USERINFO":
			return u.User.String(), u.User != nil
		}
		return "", false
	}),
	"protocol": strKernel(func(r *strRow) (string, bool) {
		s := r.s(0)
		if i := strings.Index(s, "://"); i > 0 {
			return s[:i], true
		}
		return "", true
	}),
	"domain":             strKernel(func(r *strRow) (string, bool) { return urlDomain(r.s(0)), true }),
	"domain_without_www": strKernel(func(r *strRow) (string, bool) { return strings.TrimPrefix(urlDomain(r.s(0)), "www."), true }),
	"extract_url_parameter": strKernel(func(r *strRow) (string, bool) {
		s := r.s(0)
		if i := strings.IndexByte(s, '#'); i >= 0 {
			s = s[:i]
		}
		i := strings.IndexByte(s, '?')
		if i < 0 {
			return "", true
		}
		v, _ := queryParam(s[i+1:], r.s(1))
		return v, true
	}),
}

// urlDomain is the host of s (ClickHouse's domain(), which Doris copies):
// the text after "scheme://" (or "//") up to the port, path, query or
// fragment.
func urlDomain(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	} else if strings.HasPrefix(s, "//") {
		s = s[2:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return s
}

// queryParam finds key's first value in a raw query string, undecoded.
func queryParam(q, key string) (string, bool) {
	for _, kv := range strings.Split(q, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k == key {
			return v, true
		}
	}
	return "", false
}
