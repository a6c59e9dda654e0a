package hook

// What the tests of package hook_test reach inside.
var ApplyPatchPaths = applyPatchPaths
