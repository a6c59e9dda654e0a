#!/usr/bin/env bash
# Regenerates the fingerprint corpus from real tools: each failure is
# produced twice, in fresh temporary directories, so paths, times,
# addresses and goroutine numbers differ between runs. Layout:
# CLASS/FAILURE/runN.txt. Needs go, g++, cmake and ctest.
set -uo pipefail
out=$(cd "$(dirname "$0")" && pwd)

record() { # class failure run command...
	local dest="$out/$1/$2"; mkdir -p "$dest"; shift 2
	local run=$1; shift
	"$@" > "$dest/run$run.txt" 2>&1
	true
}

gomod() { # dir files...
	local d=$1; shift
	mkdir -p "$d"; printf 'module example.com/calc\n\ngo 1.26\n' > "$d/go.mod"
	while [ $# -gt 0 ]; do printf '%s\n' "$2" > "$d/$1"; shift 2; done
}

for run in 1 2; do
	t=$(mktemp -d)
	gomod "$t/a" calc.go 'package calc

func Div(a, b int) int { return a / b + missing }'
	record compile go-build-undefined $run sh -c "cd $t/a && go build ./..."
	gomod "$t/b" calc.go 'package calc

func Div(a, b int) string { return a / b }'
	record compile go-build-type $run go build -C "$t/b" -o "$t/b.out" "$t/b/calc.go"
	gomod "$t/c" calc.go 'package calc

func Div(a, b int) int { return a / b }' calc_test.go 'package calc

import "testing"

func TestDiv(t *testing.T) {
	if got := Div(7, 2); got != 4 {
		t.Errorf("Div(7, 2) = %d, want 4", got)
	}
}

func TestDivNeg(t *testing.T) {}'
	record test go-test-assert $run sh -c "cd $t/c && go test -count=1 ./..."
	gomod "$t/d" calc.go 'package calc

func Div(a, b int) int { return a / b }' calc_test.go 'package calc

import "testing"

func TestDiv(t *testing.T) {}

func TestDivZero(t *testing.T) {
	var m map[int]int
	m[Div(1, 1)] = 1
}'
	record test go-test-panic $run sh -c "cd $t/d && go test -count=1 ./..."
	gomod "$t/e" calc.go 'package calc' calc_test.go 'package calc

import (
	"testing"
	"time"
)

func TestHangs(t *testing.T) { time.Sleep(time.Hour) }'
	record timeout go-test-timeout $run sh -c "cd $t/e && go test -count=1 -timeout=1s ./..."
	gomod "$t/v" calc.go 'package calc

import "fmt"

func Say(n int) { fmt.Printf("%s\n", n) }'
	record lint go-vet-printf $run sh -c "cd $t/v && go vet ./..."
	mkdir -p "$t/g"
	printf '#include <string>\nint f() { std::string s = 1.5; return s.size(); }\n' > "$t/g/a.cpp"
	record compile gxx-conversion $run g++ -c "$t/g/a.cpp" -o "$t/g/a.o"
	printf 'int g() { return undeclared_name + 1; }\n' > "$t/g/b.cpp"
	record compile gxx-undeclared $run g++ -c "$t/g/b.cpp" -o "$t/g/b.o"
	printf 'int h();\nint main() { return h(); }\n' > "$t/g/c.cpp"
	record compile gxx-link $run g++ "$t/g/c.cpp" -o "$t/g/c"
	for which in fail hang; do
		mkdir -p "$t/cm-$which"
		cat > "$t/cm-$which/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(t CXX)
enable_testing()
add_executable(t t.cpp)
add_test(NAME passes COMMAND t ok)
add_test(NAME divides COMMAND t div)
add_test(NAME hangs COMMAND t hang)
set_tests_properties(hangs PROPERTIES TIMEOUT 1)
EOF
		cat > "$t/cm-$which/t.cpp" <<'EOF'
#include <cstdio>
#include <cstring>
#include <unistd.h>
int main(int argc, char **argv) {
    if (std::strcmp(argv[1], "div") == 0) { std::printf("divide(7, 2) = 4, want 3\n"); return 1; }
    if (std::strcmp(argv[1], "hang") == 0) { sleep(100); }
    return 0;
}
EOF
		(cd "$t/cm-$which" && cmake -S . -B build >/dev/null && cmake --build build >/dev/null)
	done
	record test ctest-divides $run sh -c "cd $t/cm-fail && ctest --test-dir build --output-on-failure -R 'passes|divides'"
	record timeout ctest-hangs $run sh -c "cd $t/cm-hang && ctest --test-dir build --output-on-failure -R 'passes|hangs'"
	mkdir -p "$t/cfg"; printf 'cmake_minimum_required(VERSION 3.16)\nproject(t CXX)\nadd_executable(t missing.cpp)\n' > "$t/cfg/CMakeLists.txt"
	record compile cmake-missing-source $run cmake -S "$t/cfg" -B "$t/cfg/build"
	record infra missing-tool $run sh -c "$t/bin/harnish-no-such-tool --version"
	rm -rf "$t"
	sleep 1
done
