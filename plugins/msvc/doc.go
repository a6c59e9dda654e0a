// Package msvc is a [verify.Verifier] for C and C++ projects built by MSVC
// with CMake or MSBuild: the verifier of the harnish-msvc plugin
// (cmd/harnish-msvc), usable in-process too. Configured with another
// compilerId (GNU, Clang, any), the same verifier checks GCC and Clang
// projects, which is how its tests run on Linux.
//
// # What it runs
//
// [Verifier.Verify] finds the project ([Discover]) and the tools
// ([Finder]), then:
//
//   - for CMake, [verify.CMake]: cmake -S <sourceDir> -B .harnish/msvc/build
//     (with -G <generator> if configured; with a Visual Studio generator
//     -A <platform> and the instance vswhere found, otherwise
//     -DCMAKE_BUILD_TYPE=<configuration>), or cmake --preset; the build's
//     CMAKE_CXX_COMPILER_ID checked against compilerId; cmake --build
//     --config <configuration> (or --preset); ctest --show-only=json-v1,
//     which must list at least one test; ctest --output-on-failure -C
//     <configuration> (or --preset);
//   - for MSBuild: MSBuild.exe <sln|vcxproj> /m /nologo
//     /p:Configuration=<configuration> /p:Platform=<platform>, then
//     msbuild.testCommand.
//
// The report's first check, stage "discover", says what was found; each
// stage after it is a check of its own (argv, directory, exit code,
// duration, output tail, test counts), and a failing report carries the
// fingerprint of the stage that failed, as [verify.CMake] and
// [verify.Command] make them. The timeout bounds all stages together.
//
// The host bounds each call too: by the manifest's timeout, or
// [github.com/harnish/harnish/plugins.DefaultTimeout] (30 minutes) if it
// sets none, whatever this configuration says. A configured timeout beyond
// 30 minutes (up to 86400 s) needs a manifest timeout covering it, with a
// margin, or the host cuts the verification first and reports a plugin
// timeout:
//
//	plugins:
//	  - name: msvc
//	    timeout: 2h10m   # config "timeout": 7200
//
// # Discovery
//
// The project is, in this order: the configured projectType (cmake: the
// source directory's CMakeLists.txt; msbuild: msbuild.project, or the one
// solution or project found); msbuild.project, if set; CMakePresets.json, CMakeUserPresets.json or
// CMakeLists.txt in the source directory (the root unless
// cmake.sourceDir says otherwise); a single solution (.sln, .slnx); a
// single .vcxproj. Solutions and projects are looked for in the whole tree
// (not in .git, .harnish, .vs, out, build*, cmake-build-*, node_modules,
// _deps or any directory holding a CMakeCache.txt), and one at the root
// wins over those below it. Several solutions, or several projects and no
// solution, are an error naming them ([ErrAmbiguousProject]). C or C++
// sources (.c .cc .cpp .cxx .h .hpp .hxx) without any of these are an
// orphan project ([ErrOrphanProject]). A tree with neither passes, its
// discover check saying there was nothing to verify: the plugin may be
// installed for every repository, and one without C++ must not fail.
//
// A presets file makes the project a CMake one; presets are used only when
// configured, since their names and build trees are the project's own.
//
// Tools: on Windows, vswhere.exe (from %ProgramFiles(x86)%\Microsoft
// Visual Studio\Installer, else PATH) is asked for the newest Visual Studio
// with the C++ tools (-latest -products * -requires
// Microsoft.VisualStudio.Component.VC.Tools.x86.x64 -format json). cmake
// and ctest come from PATH, else from that installation's
// Common7\IDE\CommonExtensions\Microsoft\CMake\CMake\bin. MSBuild.exe comes
// from the installation (MSBuild\Current\Bin\amd64, MSBuild\Current\Bin,
// MSBuild\15.0\Bin), else PATH. Elsewhere, the tools come from PATH.
//
// Errors that keep a report from being made (a configuration that is not
// valid, an ambiguous or orphan project, a missing tool) are
// [*verify.Error]s of [verify.KindUnavailable]: faults of the setup, which
// cost the agent no attempt.
//
// # Configuration
//
// [ConfigFile], .harnish/msvc.json in the working tree, or the plugin
// setting "config" ([ConfigFromSettings]), or a [Config] set on the
// Verifier. All of it is optional but version:
//
//	{
//	  "version": 1,                  // required; the schema version
//	  "projectType": "cmake",        // cmake | msbuild; default: discovered
//	  "configuration": "Debug",      // default Debug (with presets: the presets')
//	  "platform": "x64",             // default x64; MSBuild's Platform, CMake's -A
//	  "compilerId": "MSVC",          // CMake's CMAKE_CXX_COMPILER_ID wanted; "any": none; default MSVC
//	  "timeout": 1800,               // seconds for the whole verification, 1..86400; default 1800
//	  "cmake": {
//	    "sourceDir": ".",            // where CMakeLists.txt is; default the root
//	    "generator": "Ninja",        // -G, without presets; default CMake's
//	    "configurePreset": "x64-debug",   // these four go together: all or none
//	    "buildPreset": "x64-debug",
//	    "testPreset": "x64-debug",
//	    "binaryDir": "out/build/x64-debug" // the configure preset's build tree
//	  },
//	  "msbuild": {
//	    "project": "app.sln",        // .sln, .slnx or .vcxproj; default: discovered
//	    "testCommand": ["x64/Debug/tests.exe"]  // argv from the root, no shell; required for MSBuild
//	  },
//	  "tdd": {                       // optional test-first check of the task's declared files
//	    "patterns": {".cpp": ["{stem}_test.cpp", "test_{stem}.cpp"]}
//	  }
//	}
//
// (JSON has no comments; they are here to explain.) Parsing is strict:
// unknown fields (names match exactly, unlike encoding/json's default),
// fields given twice and values of the wrong type are errors, and every
// error names the file, the line and column, and the field
// ([ConfigError]). Paths are relative to the repository, with / or \, and
// may not leave it: absolute, drive (C:\, C:x) and UNC paths are refused on
// every OS, as is "..". cmake and msbuild sections contradicting
// projectType are errors. A test pattern must contain {stem} and no
// directory.
//
// With tdd set, every file of the task's declared scope (task.Files) whose
// extension has patterns, exists and is not itself a test needs a file
// named by one of its patterns somewhere in the tree; a stage "tdd" runs
// before the build and fails with class test when one is missing.
package msvc

import "github.com/harnish/harnish/verify"

var _ verify.Verifier = (*Verifier)(nil)
