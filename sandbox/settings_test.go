package sandbox

import "testing"

// Equal compares what the settings say, not where they are held.
func TestSettingsEqual(t *testing.T) {
	yes, yes2, no := true, true, false
	base := func() Settings {
		return Settings{Network: &yes, Filesystem: Filesystem{AllowWrite: []string{"/a"}, AllowRead: []string{"/b"}}}
	}
	same := base()
	same.Network = &yes2
	if !base().Equal(same) {
		t.Error("equal settings held in other variables are not Equal")
	}
	for name, change := range map[string]func(*Settings){
		"Enabled":     func(s *Settings) { s.Enabled = &yes },
		"Network":     func(s *Settings) { s.Network = &no },
		"Network nil": func(s *Settings) { s.Network = nil },
		"Required":    func(s *Settings) { s.Required = &no },
		"AllowWrite":  func(s *Settings) { s.Filesystem.AllowWrite = nil },
		"AllowRead":   func(s *Settings) { s.Filesystem.AllowRead = []string{"/c"} },
	} {
		s := base()
		change(&s)
		if s.Equal(base()) || base().Equal(s) {
			t.Errorf("settings differing in %s are Equal", name)
		}
	}
}
