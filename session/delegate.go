package session

import (
	"context"
	"fmt"
	"strings"

	"github.com/gen-run/gen/loop"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/subagent"
)

// agentTool is the main loop's Agent tool: it runs a subagent headless.
// Subagents see neither Agent nor AskUserQuestion (schema.Visible), so
// delegation is one level deep.
type agentTool struct{ s *Session }

func (*agentTool) Name() string { return "Agent" }

// rank orders modes by how much they allow without asking.
func rank(m perm.Mode) int {
	switch m {
	case perm.ModeExplore:
		return 0
	case perm.ModeDefault, perm.ModeDontAsk, "":
		return 1
	case perm.ModeAcceptEdits, perm.ModeAuto:
		return 2
	}
	return 3 // bypassPermissions
}

// Run delegates to the subagent named by subagent_type. Its policy is its
// own frontmatter plus every settings deny rule (CLI flags included) and
// the parent's session state; it is never less constrained than the
// parent: its mode is capped at the main loop's (an acceptEdits agent
// delegated from default mode runs in default mode). Its events are forwarded, tied to
// this call, and its denials reach the parent's result.
func (t *agentTool) Run(ctx context.Context, input map[string]any) (string, error) {
	s := t.s
	typ, _ := input["subagent_type"].(string)
	prompt, _ := input["prompt"].(string)

	s.mu.Lock()
	def, lookupErr := s.catalog.Lookup(typ)
	set := *s.set
	set.Workspace.Dirs = append(set.Workspace.Dirs[:len(set.Workspace.Dirs):len(set.Workspace.Dirs)], s.dirs...)
	parentMode := s.mode
	s.mu.Unlock()
	if lookupErr != nil {
		return "", lookupErr
	}
	d := *def
	if rank(d.Mode) > rank(parentMode) {
		// Never less constrained than the parent: a child asking for a
		// more permissive mode gets the parent's.
		d.Mode = parentMode
	}

	ts, _ := ctx.Value(turnKey{}).(*turnState)
	callID := loop.CallID(ctx)
	cfg := subagent.Config{
		Def:        &d,
		Settings:   &set,
		Model:      s.cfg.Model,
		HTTPClient: s.cfg.HTTPClient,
		SearchURL:  s.cfg.SearchURL,
	}
	if ts != nil && ts.onEvent != nil {
		cfg.OnEvent = func(e loop.Event) {
			e.Parent = callID
			ts.onEvent(e)
		}
	}
	rep := subagent.Run(ctx, cfg, prompt)
	if ts != nil {
		ts.mu.Lock()
		loop.AddUsage(&ts.usage, rep.Outcome.Usage)
		ts.mu.Unlock()
	}
	if ts != nil && len(rep.Outcome.Denials) > 0 {
		ts.mu.Lock()
		for _, dn := range rep.Outcome.Denials {
			dn.Reason = fmt.Sprintf("[subagent %s] %s", d.Name, dn.Reason)
			ts.denials = append(ts.denials, dn)
		}
		ts.mu.Unlock()
	}
	if rep.Err != nil {
		return "", fmt.Errorf("subagent %s failed: %w", d.Name, rep.Err)
	}
	var b strings.Builder
	b.WriteString(rep.Outcome.Final)
	if len(rep.Outcome.Denials) > 0 {
		fmt.Fprintf(&b, "\n\nPermission denials in subagent %s:", d.Name)
		for _, dn := range rep.Outcome.Denials {
			fmt.Fprintf(&b, "\n- %s(%s): %s", dn.ToolName, perm.Specifier(dn.ToolName, dn.ToolInput), dn.Reason)
		}
	}
	return b.String(), nil
}
