//go:build tools

// Package deps pins modules that the project is about to use, so that
// parallel work does not race on go.mod. It is never built.
package deps

import (
	_ "github.com/JohannesKaufmann/html-to-markdown/v2"
	_ "github.com/adrg/frontmatter"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/charmbracelet/bubbles/textarea"
	_ "github.com/charmbracelet/bubbletea"
	_ "github.com/charmbracelet/lipgloss"
	_ "github.com/pmezard/go-difflib/difflib"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "github.com/sashabaranov/go-openai"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/sync/errgroup"
	_ "gopkg.in/yaml.v3"
	_ "mvdan.cc/sh/v3/syntax"
)
