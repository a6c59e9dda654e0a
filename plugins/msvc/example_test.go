package msvc_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/harnish/harnish/plugins/msvc"
	"github.com/harnish/harnish/task"
	"github.com/harnish/harnish/verify"
)

// A repository with no C or C++ passes, and says why; one with sources but
// no build metadata cannot be verified.
func Example() {
	root, _ := os.MkdirTemp("", "msvc-example")
	defer os.RemoveAll(root)
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644)

	v := &msvc.Verifier{}
	req := &verify.Request{Task: &task.Task{ID: "T1"}, WorkDir: root}
	rep, err := v.Verify(context.Background(), req)
	fmt.Println(rep.Passed, rep.Checks[0].OutputTail, err)

	os.WriteFile(filepath.Join(root, "calc.cpp"), []byte("int x;\n"), 0o644)
	_, err = v.Verify(context.Background(), req)
	fmt.Println(err)
	// Output:
	// true harnish: no C/C++ sources and no build metadata: nothing to verify <nil>
	// unavailable: check "msvc": msvc: C/C++ sources without a CMakeLists.txt, solution or project: calc.cpp
}

// Configuration errors name the file, line, column and field.
func ExampleParseConfig() {
	_, err := msvc.ParseConfig([]byte(`{
  "version": 1,
  "cmake": {"sourceDir": "..\\src", "preset": "dev"}
}`), ".harnish/msvc.json")
	fmt.Println(err)
	// Output:
	// msvc: .harnish/msvc.json:3:37: cmake.preset: unknown field (valid fields: binaryDir, buildPreset, configurePreset, generator, sourceDir, testPreset)
	// .harnish/msvc.json:3:26: cmake.sourceDir: "..\\src" leaves the repository; want a path relative to the repository's root
}
