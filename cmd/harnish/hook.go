package main

import (
	"io"
	"os"

	"github.com/harnish/harnish/cmd/internal/hookcmd"
)

// hookCommand is "harnish hook": hookcmd's command line over package hook,
// which cmd/harnish-hook shares.
var hookCommand = &command{
	name:    "hook",
	args:    hookcmd.Synopsis,
	summary: hookcmd.Summary,
	help:    hookcmd.Help,
	run: func(_ *command, args []string, stdout, stderr io.Writer) int {
		return hookcmd.Run(args, os.Stdin, stdout, stderr)
	},
}
