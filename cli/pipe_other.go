//go:build !unix

package cli

// outputGone is false where there is no SIGPIPE: a write to a closed
// pipe only fails.
func outputGone() bool { return false }
