package session

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/policy"
	"github.com/gen-run/gen/settings"
)

// Rules returns the effective rules: every settings scope and CLI flag,
// then this session's own allow rules.
func (s *Session) Rules() []policy.RuleView {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []policy.RuleView
	add := func(list string, es []perm.Entry) {
		for _, e := range es {
			out = append(out, policy.RuleView{List: list, Rule: e.Rule.String(), Source: e.Source, Origin: e.Origin})
		}
	}
	add("allow", s.set.Allow)
	add("ask", s.set.Ask)
	add("deny", s.set.Deny)
	for _, r := range s.session {
		out = append(out, policy.RuleView{List: "allow", Rule: r.String(), Source: perm.SourceSession, Origin: "this session"})
	}
	return out
}

// scopeFile is the settings file a person may edit for scope. A project
// file that is a symbolic link is refused: a repository could point it at
// the user's settings and turn a rule approved for this project into one
// for every project.
func (s *Session) scopeFile(scope perm.Source) (string, error) {
	s.mu.Lock()
	root, home := s.set.Workspace.Root, s.set.Workspace.Home
	s.mu.Unlock()
	var path string
	switch scope {
	case perm.SourceLocal:
		path = filepath.Join(root, ".gen", "settings.local.json")
	case perm.SourceProject:
		path = filepath.Join(root, ".gen", "settings.json")
	case perm.SourceUser:
		return filepath.Join(home, ".gen", "settings.json"), nil
	default:
		return "", fmt.Errorf("rules can be edited in the local, project or user scope, not %q", scope)
	}
	for _, p := range []string{filepath.Dir(path), path} {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			return "", fmt.Errorf("%s is a symbolic link; gen does not write project settings through links", p)
		}
	}
	return path, nil
}

func checkList(list string) error {
	switch list {
	case "allow", "ask", "deny":
		return nil
	}
	return fmt.Errorf("unknown rule list %q (want allow, ask or deny)", list)
}

// AddRule writes rule to list in the settings file of scope and reloads
// the settings. Allow rules are refused where managed settings allow only
// managed rules.
func (s *Session) AddRule(scope perm.Source, list, rule string) error {
	if err := checkList(list); err != nil {
		return err
	}
	if _, err := perm.ParseRule(rule); err != nil {
		return err
	}
	s.mu.Lock()
	managedOnly, trusted, root := s.set.ManagedRulesOnly, s.set.Trusted, s.set.Workspace.Root
	s.mu.Unlock()
	if list == "allow" && managedOnly {
		return fmt.Errorf("managed settings allow only managed permission rules (allowManagedPermissionRulesOnly)")
	}
	if list == "allow" && scope.Project() && !trusted {
		return fmt.Errorf("the project %s is not trusted, so allow rules in its settings do not apply: trust it first (`gen trust %s`), or add the rule to the user scope", root, root)
	}
	path, err := s.scopeFile(scope)
	if err != nil {
		return err
	}
	if err := s.rules(scope).add(path, list, rule); err != nil {
		return err
	}
	return s.reload()
}

// RemoveRule removes rule from list in the settings file of scope (or, for
// the session scope, from this session's rules) and reloads the settings.
func (s *Session) RemoveRule(scope perm.Source, list, rule string) error {
	if err := checkList(list); err != nil {
		return err
	}
	if scope == perm.SourceSession {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, r := range s.session {
			if r.String() == rule && list == "allow" {
				s.session = append(s.session[:i:i], s.session[i+1:]...)
				return nil
			}
		}
		return fmt.Errorf("no session rule %s", rule)
	}
	path, err := s.scopeFile(scope)
	if err != nil {
		return err
	}
	if err := s.rules(scope).remove(path, list, rule); err != nil {
		return err
	}
	return s.reload()
}

// ruleWriter writes rules to a settings file.
type ruleWriter struct {
	add, remove func(path, list, rule string) error
}

// rules is the writer for the settings file of scope: in a trusted
// project, one that keeps the project's recorded trust current when it
// writes a project file (settings.KeepTrust), so that gen's own write
// does not untrust the project.
func (s *Session) rules(scope perm.Source) ruleWriter {
	s.mu.Lock()
	trusted, root, home := s.set.Trusted, s.set.Workspace.Root, s.set.Workspace.Home
	s.mu.Unlock()
	if trusted && scope.Project() {
		k := settings.KeepTrust{User: settings.UserPath(home), Root: root}
		return ruleWriter{k.AddRule, k.RemoveRule}
	}
	return ruleWriter{settings.AddRule, settings.RemoveRule}
}

// reload reads every settings scope again after gen wrote one. A file
// that became invalid is an error, and every call is denied until it is
// fixed: a broken file never means an empty policy, nor the old one.
func (s *Session) reload() error {
	if _, err := s.live.Reload(); err != nil {
		return err
	}
	s.Policy() // records the new settings
	return nil
}
