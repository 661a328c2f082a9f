package perm

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestDeniedPaths(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, home, outside := filepath.Join(base, "proj"), filepath.Join(base, "home"), filepath.Join(base, "outside")
	for p, c := range map[string]string{
		root + "/.env": "x", root + "/secrets/k": "x", root + "/a.pem": "x", root + "/b.pem": "x", root + "/src/c.pem": "x",
		root + "/gen.lock": "x", home + "/.ssh/id_ed25519": "x", outside + "/key": "x", root + "/deep/x/k": "x",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside+"/key", root+"/keylink"); err != nil {
		t.Fatal(err)
	}
	p := &Policy{Workspace: Workspace{Cwd: root, Root: root, Home: home}}
	p.Deny = entries(SourceUser, "Read(./.env)", "Read(./secrets/**)", "Read(./*.pem)", "Read(~/.ssh/)", "Read(./keylink)",
		"Read(*.pem)", "Read(**/.env)", "Read(./deep/*/k)", "Read(./missing)", "Read(**/missing)", "Read", "Bash(curl:*)",
		"Edit(./gen.lock)", "Write(./.env)", "Edit(//)")
	p.Ask = entries(SourceUser, "Read(./src/**)")
	read, edit := p.DeniedPaths()
	// Named paths first, in rule order, then what the walk of the
	// workspace finds for *.pem, **/.env and ./deep/*/k, breadth first.
	wantRead := []string{root + "/.env", root + "/secrets", root + "/a.pem", root + "/b.pem", home + "/.ssh", outside + "/key",
		root + "/src/c.pem", root + "/deep/x/k"}
	if !slices.Equal(read, wantRead) {
		t.Errorf("read = %q\nwant %q", read, wantRead)
	}
	// .env is already hidden; "/" is never returned.
	if want := []string{root + "/gen.lock"}; !slices.Equal(edit, want) {
		t.Errorf("edit = %q, want %q", edit, want)
	}
}

// TestDeniedPathsWalkBound: the search for patterns that match by name
// anywhere reads at most maxWalkEntries entries, breadth first, so a
// shallow match is found in a tree too big to search whole.
func TestDeniedPathsWalkBound(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(root, "big")
	if err := os.MkdirAll(big, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range maxWalkEntries + 10 {
		if err := os.WriteFile(filepath.Join(big, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"z/.env", "big/.env"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := &Policy{Workspace: Workspace{Cwd: root, Root: root, Home: root}, Deny: entries(SourceUser, "Read(.env)")}
	read, _ := p.DeniedPaths()
	// big/.env sorts first in big and is found; z/.env lies past the bound.
	if want := []string{big + "/.env"}; !slices.Equal(read, want) {
		t.Errorf("read = %q, want %q", read, want)
	}
}

// BenchmarkDeniedPaths is what each sandboxed Bash command adds to find
// the paths to cover: five deny rules, two of them searched for, in a
// workspace of 5,000 files in 100 directories (the search reads all of
// it). Compare with sandbox's BenchmarkSandboxedTrue.
func BenchmarkDeniedPaths(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for d := range 100 {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 50 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, f := range []string{".env", "x.pem", "secrets/k"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755)
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	p := &Policy{Workspace: Workspace{Cwd: root, Root: root, Home: root},
		Deny: entries(SourceUser, "Read(./.env)", "Read(./secrets/**)", "Edit(./go.mod)", "Read(*.pem)", "Read(**/.env.*)")}
	for b.Loop() {
		if read, _ := p.DeniedPaths(); len(read) != 3 {
			b.Fatalf("read = %q", read)
		}
	}
}

func TestDeniedPrograms(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bin, bin2, opt := filepath.Join(base, "bin"), filepath.Join(base, "bin2"), filepath.Join(base, "opt")
	for _, f := range []string{bin + "/zcurl", bin2 + "/zcurl", bin + "/zpy3.11", bin + "/zbusybox", bin + "/zrm", bin + "/zls", opt + "/ztool", bin + "/zdir/x"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{bin + "/zpy3": "zpy3.11", bin + "/zwget": "zbusybox", bin2 + "/zcurl2": "../bin/zcurl", bin + "/zsh": "zdir"} {
		if err := os.Symlink(to, link); err != nil {
			t.Fatal(err)
		}
	}
	p := &Policy{}
	p.Deny = entries(SourceUser, "Bash(zcurl:*)", "Bash(zpy3 *)", "Bash(zwget:*)", "Bash(zrm -rf *)", "Bash(zls)",
		"Bash("+opt+"/ztool:*)", "Bash(zsh:*)", "Bash(zmissing:*)", "Bash(z*)", "Read(./zls)")
	p.Ask = entries(SourceUser, "Bash(zls:*)")
	p.Allow = entries(SourceUser, "Bash(zls:*)")
	// Every zcurl on the path, in rule order; a versioned real name is
	// the program's, a multi-call binary behind another name is not; a
	// rule that denies only some of a program's commands hides nothing,
	// nor does a directory, nor an ask rule.
	want := []string{bin + "/zcurl", bin2 + "/zcurl", bin + "/zpy3.11", opt + "/ztool"}
	if got := p.DeniedPrograms(bin + string(filepath.ListSeparator) + "relative" + string(filepath.ListSeparator) + bin2); !slices.Equal(got, want) {
		t.Errorf("DeniedPrograms = %q, want %q", got, want)
	}
	if got := (&Policy{Deny: entries(SourceUser, "Bash(zrm -rf *)", "Read(./.env)")}).DeniedPrograms(bin); got != nil {
		t.Errorf("no outright Bash deny rule: %q", got)
	}
}
