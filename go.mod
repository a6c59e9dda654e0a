module github.com/harnish/harnish

go 1.26.0

require (
	github.com/Masterminds/semver/v3 v3.5.0
	github.com/google/go-cmp v0.7.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sys v0.50.0
	mvdan.cc/sh/v3 v3.14.1
)
