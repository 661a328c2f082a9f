package bash

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// confineBash is the re-executed test binary's work (TestMain): it has the
// kernel keep every write of itself and what it starts inside dir, then
// execs bash with args. A line of an oracle may write any file its words
// name, absolute ones too ("> /ab", "> ~"); run as root, the oracles once
// filled / with such files. It returns only on failure, with
// confineFailed.
func confineBash(dir string, args []string) int {
	err := landlock.V1.RestrictPaths(landlock.RODirs("/"), landlock.RWDirs(dir), landlock.RWFiles("/dev/null"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "landlock: %v\n", err)
		return confineFailed
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return confineFailed
	}
	env := os.Environ()
	for i, kv := range env {
		if len(kv) > len(confineEnv) && kv[:len(confineEnv)+1] == confineEnv+"=" {
			env = append(env[:i], env[i+1:]...)
			break
		}
	}
	err = syscall.Exec(bash, append([]string{"bash"}, args...), env)
	fmt.Fprintln(os.Stderr, err)
	return confineFailed
}
