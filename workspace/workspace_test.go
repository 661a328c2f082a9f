package workspace

import "testing"

func TestAbs(t *testing.T) {
	r := Roots{Cwd: "/p/sub", Root: "/p", Home: "/h"}
	for in, want := range map[string]string{
		"a.txt": "/p/sub/a.txt", "../x": "/p/x", "~": "/h", "~/.ssh/k": "/h/.ssh/k",
		"~user/x": "/p/sub/~user/x", "/etc//passwd": "/etc/passwd",
	} {
		if got := r.Abs(in); got != want {
			t.Errorf("Abs(%q) = %q, want %q", in, got, want)
		}
	}
	if got := r.Raw("link/../x"); got != "/p/sub/link/../x" {
		t.Errorf("Raw = %q", got)
	}
	if _, err := Dir("", "/b", "/h"); err == nil {
		t.Error("Dir(\"\") succeeded")
	}
	if got, _ := Dir("~/d", "/b", "/h"); got != "/h/d" {
		t.Errorf("Dir(~/d) = %q", got)
	}
}

func TestGlobStart(t *testing.T) {
	tests := []struct{ pattern, search, dir, rest string }{
		{"**/*.go", "/p", "/p", "**/*.go"},
		{"src/**/*.go", "/p", "/p/src", "**/*.go"},
		{`\*/../../x/*`, "/p/a", "/p/x", "*"},
		{"/etc/*.conf", "/p", "/etc", "*.conf"},
		{"~/.ssh/*", "/p", "~/.ssh", "*"},
		{"~/*", "/p", "~/.", "*"},
	}
	for _, tt := range tests {
		dir, rest := GlobStart(tt.pattern, tt.search)
		if dir != tt.dir || rest != tt.rest {
			t.Errorf("GlobStart(%q, %q) = %q, %q; want %q, %q", tt.pattern, tt.search, dir, rest, tt.dir, tt.rest)
		}
	}
}

func TestContains(t *testing.T) {
	r := Roots{Cwd: "/nonexistent/p/sub", Root: "/nonexistent/p", Dirs: []string{"/nonexistent/extra"}}
	for p, want := range map[string]bool{
		"/nonexistent/p/x": true, "/nonexistent/extra/y": true, "/nonexistent/pp": false, "/etc/passwd": false,
	} {
		if got := r.Contains(p); got != want {
			t.Errorf("Contains(%q) = %v", p, got)
		}
	}
}
