package hookcmd

var SimpleArgs = simpleArgs
