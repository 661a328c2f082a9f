package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/gen-run/gen/loop"
)

func TestExitCode(t *testing.T) {
	denied := loop.Outcome{Denials: []loop.Denial{{ToolName: "Bash", Reason: "no"}}}
	for _, tt := range []struct {
		name string
		run  Run
		want int
	}{
		{"ok", Run{}, ExitOK},
		{"denied", Run{Outcome: denied}, ExitDenied},
		{"failed beats denied", Run{Outcome: denied, Err: errors.New("boom")}, ExitFailed},
	} {
		if got := tt.run.ExitCode(); got != tt.want {
			t.Errorf("%s: exit %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestResultFormats(t *testing.T) {
	r := &Run{Outcome: loop.Outcome{Final: "done", Turns: 2, Denials: []loop.Denial{{ToolName: "Bash", ToolInput: map[string]any{"command": "x"}, Reason: "no"}}}}
	var out, errb bytes.Buffer
	(&Printer{Format: Text, Out: &out, Err: &errb}).Result(r)
	if out.String() != "done\n" {
		t.Errorf("text result %q", out.String())
	}
	out.Reset()
	(&Printer{Format: JSON, Out: &out, Err: &errb}).Result(r)
	var o ResultObject
	if err := json.Unmarshal(out.Bytes(), &o); err != nil {
		t.Fatal(err)
	}
	if o.Type != "result" || o.IsError || o.Result != "done" || o.NumTurns != 2 || len(o.PermissionDenials) != 1 {
		t.Errorf("json result %+v", o)
	}
	if _, err := ParseFormat("yaml"); err == nil || !strings.Contains(err.Error(), "yaml") {
		t.Errorf("ParseFormat(yaml) = %v", err)
	}
}
