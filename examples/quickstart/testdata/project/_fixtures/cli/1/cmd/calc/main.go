// Command calc divides two numbers: calc 5 2 prints 2.5.
package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout)) }

func run(args []string, w io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(w, "usage: calc A B")
		return 2
	}
	a, _ := strconv.Atoi(args[0])
	b, _ := strconv.Atoi(args[1])
	fmt.Fprintln(w, a/b)
	return 0
}
