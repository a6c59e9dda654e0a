//go:build race

package plugins_test

// raceEnabled makes TestMain build the test plugin with -race too, so it
// shares the build cache of the test binary.
const raceEnabled = true
