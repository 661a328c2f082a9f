package tool

import (
	"encoding/json"
	"fmt"
	"math"
)

// The argument readers below re-check types although the loop validates
// input against the schema first: a Tool run without validation must fail,
// not guess.

// stringArg returns the string argument key, and whether it was given.
func stringArg(tool string, in map[string]any, key string) (string, bool, error) {
	v, ok := in[key]
	if !ok || v == nil {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", false, fmt.Errorf("%s: argument %q must be a string, got %T", tool, key, v)
	}
	return s, true, nil
}

// requiredString returns the string argument key, which must be present.
func requiredString(tool string, in map[string]any, key string) (string, error) {
	s, ok, err := stringArg(tool, in, key)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("%s: missing required argument %q", tool, key)
	}
	return s, nil
}

// intArg returns the integer argument key, and whether it was given.
// JSON numbers arrive as float64 and must be whole.
func intArg(tool string, in map[string]any, key string) (int64, bool, error) {
	v, ok := in[key]
	if !ok || v == nil {
		return 0, false, nil
	}
	bad := func() (int64, bool, error) {
		return 0, false, fmt.Errorf("%s: argument %q must be an integer, got %v", tool, key, v)
	}
	switch n := v.(type) {
	case float64:
		if n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			return bad()
		}
		return int64(n), true, nil
	case int:
		return int64(n), true, nil
	case int64:
		return n, true, nil
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			return bad()
		}
		return i, true, nil
	}
	return bad()
}

// boolArg returns the boolean argument key, false when absent.
func boolArg(tool string, in map[string]any, key string) (bool, error) {
	v, ok := in[key]
	if !ok || v == nil {
		return false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("%s: argument %q must be a boolean, got %T", tool, key, v)
	}
	return b, nil
}
