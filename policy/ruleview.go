package policy

import "github.com/gen-run/gen/perm"

// RuleView is one effective rule, for /permissions.
type RuleView struct {
	List   string // allow, ask or deny
	Rule   string
	Source perm.Source
	Origin string // the file or flag it came from
}
