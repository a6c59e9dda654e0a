module github.com/harnish/harnish

go 1.26.0

require (
	github.com/Masterminds/semver/v3 v3.5.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
