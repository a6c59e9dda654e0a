package msvc_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/harnish/harnish/plugins/msvc"
)

func TestConfigFromSettings(t *testing.T) {
	tests := []struct {
		name     string
		settings map[string]string
		want     *msvc.Config
		wantErr  string
	}{
		{"none: the tree's file", nil, nil, ""},
		{"a config", map[string]string{"config": `{"version": 1, "compilerId": "Clang"}`}, &msvc.Config{Version: 1, CompilerID: "Clang"}, ""},
		{"a config that does not validate", map[string]string{"config": "{\"version\": 1,\n \"timeout\": -5}"}, nil,
			"msvc: plugin setting config:2:13: timeout: -5 seconds is out of range 1..86400"},
		{"an unknown setting", map[string]string{"config": `{"version": 1}`, "confg": "x"}, nil,
			`msvc: plugin setting "confg" is unknown (valid settings: config)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := msvc.ConfigFromSettings(tt.settings)
			if gotErr := errString(err); gotErr != tt.wantErr {
				t.Fatalf("error = %q, want %q", gotErr, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
