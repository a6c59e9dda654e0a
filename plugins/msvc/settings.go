package msvc

import (
	"fmt"
	"maps"
	"slices"
)

// SettingConfig is the plugin setting that holds the configuration: the
// JSON of [ConfigFile], given in the plugin manifest instead of the tree.
const SettingConfig = "config"

// ConfigFromSettings reads the configuration from a plugin host's settings:
// [SettingConfig] parsed by [ParseConfig], or nil (read the working tree's
// [ConfigFile]) when it is absent. Any other setting is an error, so that a
// misspelt one is not silently ignored.
func ConfigFromSettings(settings map[string]string) (*Config, error) {
	for _, k := range slices.Sorted(maps.Keys(settings)) {
		if k != SettingConfig {
			return nil, fmt.Errorf("msvc: plugin setting %q is unknown (valid settings: %s)", k, SettingConfig)
		}
	}
	data, ok := settings[SettingConfig]
	if !ok {
		return nil, nil
	}
	return ParseConfig([]byte(data), "plugin setting "+SettingConfig)
}
