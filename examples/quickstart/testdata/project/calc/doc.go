// Package calc is a tiny calculator, grown task by task by a harnish run.
package calc
